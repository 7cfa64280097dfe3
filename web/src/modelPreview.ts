/** A model text with its rules, drawn before anything exists: the diagram, and each rule checked at the initial states. */
import { diagramOrSize } from "./diagram.js";
import { h } from "./dom.js";
import { modelView, ruleView } from "./modelView.js";

export function modelPreview(model: string, rules: readonly string[]): HTMLElement {
  let view: ReturnType<typeof modelView>;
  try {
    view = modelView(model);
  } catch (err) {
    return h(
      "div",
      {},
      h("p", { class: "error" }, `The model does not parse: ${(err as Error).message}`),
      h("pre", {}, model),
    );
  }
  return h(
    "div",
    { class: "preview" },
    h("div", { class: "diagram-box" }, diagramOrSize(view, { current: view.initial })),
    h("details", {}, h("summary", {}, "Model text"), h("pre", { class: "source" }, model)),
    rules.length === 0
      ? h("p", { class: "muted" }, "No rules.")
      : h(
          "ul",
          { class: "rules" },
          ...rules.map((text) => {
            const r = ruleView(view, text, view.initial);
            return h(
              "li",
              { "data-holds": String(r.holds) },
              h(
                "span",
                { class: `badge ${r.holds ? "ok" : "bad"}` },
                r.holds ? "holds initially" : r.holds === false ? "fails initially" : "not checked",
              ),
              " ",
              h("code", { class: "formula" }, r.formula),
              r.error ? h("div", { class: "error" }, r.error) : null,
            );
          }),
        ),
  );
}
