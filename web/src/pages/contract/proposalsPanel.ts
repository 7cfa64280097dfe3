/**
 * Open proposals: commits waiting for co-signers. For each, who has signed and what is still
 * missing (the hub's `missing`: a predicate, the signers it still lacks, how many are needed).
 * Refreshed after every commit and on every `proposal` event, so it stays current without a
 * reload. Hidden while there is nothing open.
 */
import { contractPath, optional } from "../../api.js";
import { h, mount } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

interface Missing {
  predicate: string;
  signers: string[];
  needed: number;
}

interface ProposalView {
  hash: string;
  signatures: Record<string, string>;
  missing: Missing[];
  proposer: string;
  expires_at: number;
}

export function proposalsPanel(ctx: ContractPageContext): Panel & { refresh(): Promise<void> } {
  const root = h("section", { id: "proposals", hidden: true });
  return {
    root,
    async refresh() {
      const answer = await optional<{ proposals: ProposalView[] }>(contractPath(ctx.id, "/proposals"));
      if (ctx.stopped) return;
      const open = answer?.proposals ?? [];
      root.hidden = open.length === 0;
      mount(
        root,
        h("h2", {}, "Open proposals"),
        h(
          "ul",
          { class: "proposals" },
          ...open.map((p) =>
            h(
              "li",
              { "data-hash": p.hash },
              h("code", { title: p.hash }, p.hash.slice(0, 12)),
              " signed by ",
              h("span", { class: "signed" }, Object.keys(p.signatures).join(", ") || "nobody yet"),
              "; waiting for ",
              ...p.missing.map((m) =>
                h(
                  "span",
                  { class: "missing", "data-signers": m.signers.join(" "), title: m.predicate },
                  `${m.needed} of ${m.signers.join(", ")}`,
                ),
              ),
              h("span", { class: "muted" }, ` (expires ${new Date(p.expires_at * 1000).toISOString()})`),
            ),
          ),
        ),
      );
    },
  };
}
