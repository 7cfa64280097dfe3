/**
 * `#/synthesize`: a description in, a model and rules out, drawn as a diagram before anything
 * is created. Synthesis stores nothing; creating the contract is left to a client with keys.
 */
import { ApiError, post } from "../api.js";
import { h, mount } from "../dom.js";
import { modelPreview } from "../modelPreview.js";

interface Synthesis {
  model: string;
  rules: string[];
  parties?: string[];
  protections?: Record<string, string>;
  source?: string;
  warnings?: string[];
}

export function synthesizePage(app: HTMLElement): void {
  const description = h("textarea", {
    name: "description",
    rows: 4,
    placeholder: "e.g. Alice buys a bike from Bob; Carol arbitrates disputes",
    "aria-label": "Description",
  });
  const hint = h("input", { name: "pattern_hint", placeholder: "pattern hint (optional): escrow, swap, multisig…" });
  const out = h("div", { id: "synthesis" });
  const submit = async (e: Event) => {
    e.preventDefault();
    mount(out, h("p", { class: "muted" }, "Synthesizing…"));
    try {
      const body = {
        description: description.value,
        ...(hint.value.trim() ? { pattern_hint: hint.value.trim() } : {}),
      };
      const r = await post<Synthesis>("/contracts/synthesize", body);
      mount(
        out,
        h(
          "p",
          {},
          r.source ? h("span", { class: "badge" }, `from ${r.source}`) : null,
          r.parties?.length ? ` Parties: ${r.parties.join(", ")}` : "",
        ),
        ...(r.warnings ?? []).map((w) => h("p", { class: "warning" }, w)),
        r.protections
          ? h(
              "ul",
              {},
              ...Object.entries(r.protections).map(([who, what]) => h("li", {}, h("b", {}, who), `: ${what}`)),
            )
          : null,
        modelPreview(r.model, r.rules),
      );
    } catch (err) {
      const unavailable = err instanceof ApiError && err.status === 503;
      mount(
        out,
        h(
          "p",
          { class: "error" },
          unavailable
            ? `Synthesis is not available on this hub: ${err.message}`
            : err instanceof Error
              ? err.message
              : String(err),
        ),
      );
    }
  };
  mount(
    app,
    h("h1", {}, "Synthesize a contract"),
    h("p", { class: "muted" }, "Describe the agreement; the hub proposes a model and rules. Nothing is created."),
    h("form", { class: "synth", onsubmit: submit }, description, hint, h("button", { type: "submit" }, "Synthesize")),
    out,
  );
}
