/** The transitions a custom WASM predicate guards, and the module each one runs. Hidden when there are none. */
import { customGuards } from "../../customPredicates.js";
import { h, mount, scrollTable } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

export function customPredicatesPanel(ctx: ContractPageContext): Panel {
  const body = h("div", { id: "custom-predicates" });
  const root = h("section", { hidden: "" }, h("h2", {}, "Custom predicates"), body);
  return {
    root,
    draw() {
      const guards = ctx.view ? customGuards(ctx.view) : [];
      root.toggleAttribute("hidden", guards.length === 0);
      if (guards.length === 0) return mount(body);
      mount(
        body,
        h(
          "p",
          { class: "muted" },
          "These transitions are taken only when a WebAssembly module stored in the contract answers " +
            "valid (metered by gas, off the hub's main thread). A rejection lists each module's errors and gas.",
        ),
        scrollTable(
          { class: "list" },
          h("thead", {}, h("tr", {}, h("th", {}, "Transition"), h("th", {}, "Predicate"), h("th", {}, "Module"))),
          h(
            "tbody",
            {},
            ...guards.flatMap((g) =>
              g.predicates.map((p) =>
                h(
                  "tr",
                  { "data-custom-predicate": p.name },
                  h("td", {}, h("b", {}, `${g.from} → ${g.to}`), " ", h("code", {}, g.label)),
                  h("td", {}, h("code", {}, p.text), p.negated ? " (must not hold)" : ""),
                  h("td", {}, h("code", {}, p.module)),
                ),
              ),
            ),
          ),
        ),
      );
    },
  };
}
