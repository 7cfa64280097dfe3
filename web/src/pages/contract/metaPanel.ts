/** The line under the title: current state, commit count, age and head; errors replace it. */
import { h, mount, when } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

export interface MetaPanel extends Panel {
  showError(text: string): void;
}

export function metaPanel(ctx: ContractPageContext): MetaPanel {
  // The drawn head and count as attributes too: what tests and scripts read, whatever the wording.
  const root = h("div", { class: "meta", id: "contract-meta" });
  return {
    root,
    draw() {
      const { contract, state } = ctx;
      if (!contract || !state) return;
      root.dataset.head = state.head;
      root.dataset.commitCount = String(state.commit_count);
      mount(
        root,
        h(
          "p",
          {},
          "Current state ",
          h("span", { class: "badge current-state", id: "current-state" }, state.current_state || "(no model)"),
          ` · ${state.commit_count} commit${state.commit_count === 1 ? "" : "s"} · created ${when(contract.created_at)} · head `,
          h("code", { title: state.head }, state.head.slice(0, 12)),
        ),
      );
    },
    showError(text) {
      mount(root, h("p", { class: "error" }, text));
    },
  };
}
