/** `#/templates` and `#/templates/<id>`: the catalogue, and one template's model and rules as a diagram. */
import { ApiError, get } from "../api.js";
import { h, mount, scrollTable } from "../dom.js";
import { modelPreview } from "../modelPreview.js";

interface Param {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  path?: string;
}
interface Template {
  id: string;
  name: string;
  description: string;
  params: Param[];
  model?: string;
  rules?: string[];
  protections?: Record<string, string>;
}

const failed = (err: unknown) => h("p", { class: "error" }, err instanceof ApiError ? err.message : String(err));

/*
 * Each page mounts its own box at once and fills only that box when the hub answers: a visitor
 * who has moved on meanwhile has a detached box, so a late answer never replaces the new page.
 */

export async function templatesPage(app: HTMLElement): Promise<void> {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  mount(app, h("h1", {}, "Templates"), body);
  try {
    const list = await get<Template[]>("/templates");
    mount(
      body,
      h(
        "ul",
        { class: "cards" },
        ...list.map((t) =>
          h(
            "li",
            { "data-template": t.id },
            h("a", { href: `#/templates/${encodeURIComponent(t.id)}` }, h("b", {}, t.name)),
            h("p", {}, t.description),
            h(
              "p",
              { class: "muted" },
              "Parameters: ",
              t.params.map((p) => `${p.name}${p.required ? "" : "?"}`).join(", "),
            ),
          ),
        ),
      ),
    );
  } catch (err) {
    mount(body, failed(err));
  }
}

export async function templatePage(app: HTMLElement, id: string): Promise<void> {
  const box = h("div", {}, h("h1", {}, "Template ", h("code", {}, id)), h("p", { class: "muted" }, "Loading…"));
  mount(app, box);
  try {
    const t = await get<Template>(`/templates/${encodeURIComponent(id)}`);
    mount(
      box,
      h("p", {}, h("a", { href: "#/templates" }, "← templates")),
      h("h1", {}, t.name),
      h("p", {}, t.description),
      scrollTable(
        { class: "list" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "Parameter"),
            h("th", {}, "Type"),
            h("th", {}, "Required"),
            h("th", {}, "Path"),
            h("th", {}, "Meaning"),
          ),
        ),
        h(
          "tbody",
          {},
          ...t.params.map((p) =>
            h(
              "tr",
              {},
              h("td", {}, p.name),
              h("td", {}, p.type),
              h("td", {}, p.required ? "yes" : "no"),
              h("td", {}, h("code", {}, p.path ?? "")),
              h("td", {}, p.description ?? ""),
            ),
          ),
        ),
      ),
      t.protections
        ? h("ul", {}, ...Object.entries(t.protections).map(([who, what]) => h("li", {}, h("b", {}, who), `: ${what}`)))
        : null,
      t.model ? modelPreview(t.model, t.rules ?? []) : h("p", { class: "muted" }, "No model."),
    );
  } catch (err) {
    mount(box, h("h1", {}, "Template ", h("code", {}, id)), failed(err));
  }
}
