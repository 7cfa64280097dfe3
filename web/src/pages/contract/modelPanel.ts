/** The model as a diagram with the current states, the marks, and the table of valid next actions. */
import { diagramOrSize } from "../../diagram.js";
import { h, mount, scrollTable } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

export function modelPanel(ctx: ContractPageContext): Panel {
  const diagram = h("div", { class: "diagram-box", id: "diagram" });
  const actions = h("div", { id: "valid-actions" });
  return {
    root: h("section", {}, h("h2", {}, "Model"), diagram, actions),
    draw() {
      const { contract, state, view, marks } = ctx;
      if (!contract || !state) return;
      if (contract.model === null || view === null) {
        mount(
          diagram,
          h(
            "p",
            { class: "muted" },
            contract.model === null ? "This contract has no model." : "The model could not be read.",
          ),
        );
        mount(actions);
        return;
      }
      mount(
        diagram,
        diagramOrSize(view, { current: ctx.current(), valid: state.valid_actions, ...(marks ? { path: marks } : {}) }),
      );
      mount(
        actions,
        state.valid_actions.length === 0
          ? h("p", { class: "muted" }, "No action may follow from the current state.")
          : scrollTable(
              { class: "list" },
              h(
                "thead",
                {},
                h("tr", {}, h("th", {}, "Next action"), h("th", {}, "Leads to"), h("th", {}, "Must be signed by")),
              ),
              h(
                "tbody",
                {},
                ...state.valid_actions.map((a) =>
                  h(
                    "tr",
                    { "data-action": a.action },
                    h("td", {}, h("b", {}, a.action || "(unlabelled)")),
                    h("td", {}, a.to),
                    h(
                      "td",
                      {},
                      ...(a.required_signers ?? [a.required_signer]).filter(Boolean).map((p) => h("code", {}, p, " ")),
                    ),
                  ),
                ),
              ),
            ),
      );
    },
  };
}
