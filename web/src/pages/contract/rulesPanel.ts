/** The contract's rules, each checked at the current states, with counterexamples drawable on the diagram. */
import { h, mount } from "../../dom.js";
import { explanationMarks } from "../../explain.js";
import { ruleView } from "../../modelView.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

export function rulesPanel(ctx: ContractPageContext): Panel {
  const rules = h("div", { id: "rules" });
  return {
    root: h("section", {}, h("h2", {}, "Rules"), rules),
    draw() {
      const { contract, view } = ctx;
      if (!contract) return;
      if (contract.rules.length === 0) {
        mount(rules, h("p", { class: "muted" }, "No rules."));
        return;
      }
      const at = ctx.current();
      mount(
        rules,
        h(
          "p",
          { class: "muted" },
          "The hub refuses any commit that breaks a rule at its anchor. Below: whether each rule's formula holds from the current state.",
        ),
        h(
          "ul",
          { class: "rules" },
          ...contract.rules.map((text, i) => {
            const r = ruleView(view, text, at);
            const verdict =
              r.holds === true
                ? h("span", { class: "badge ok" }, "holds")
                : r.holds === false
                  ? h("span", { class: "badge bad" }, "fails here")
                  : h("span", { class: "badge" }, "not checked");
            const counterexample = r.counterexample;
            return h(
              "li",
              { "data-rule": i, "data-holds": String(r.holds) },
              verdict,
              " ",
              r.name ? h("b", {}, r.name, " ") : null,
              h("code", { class: "formula" }, r.formula),
              h("span", { class: "muted" }, ` anchored at ${r.anchor}`),
              r.error ? h("div", { class: "error" }, r.error) : null,
              counterexample
                ? h(
                    "div",
                    {},
                    `Counterexample: ${counterexample.path.join(" → ")} `,
                    h(
                      "button",
                      {
                        type: "button",
                        onclick: () => {
                          if (!ctx.view) return;
                          ctx.mark(explanationMarks(ctx.view, { code: "", message: "", details: { counterexample } }));
                        },
                      },
                      "Show on diagram",
                    ),
                  )
                : null,
            );
          }),
        ),
      );
    },
  };
}
