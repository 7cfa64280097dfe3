/** The data state, replayed from the pulled log (incrementally: each refresh pulls only what is new). */
import { contractPath, get } from "../../api.js";
import { applyCommit, type PulledCommit, renderDataTree } from "../../dataState.js";
import { h, mount } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

const PULL_PAGE = 1000;
/** The data tree replays at most this many commits; past it the page says the tree is partial. */
const PULL_MAX = 20_000;

export function dataPanel(ctx: ContractPageContext): Panel {
  const root = h("div", { id: "data" });
  const data = new Map<string, unknown>();
  let pulledHead: string | null = null;
  let pulled = 0;
  return {
    root: h("section", {}, h("h2", {}, "Data state"), root),
    async refresh() {
      for (;;) {
        if (pulled >= PULL_MAX) break;
        const q = { limit: PULL_PAGE, ...(pulledHead ? { since: pulledHead } : {}) };
        const page = await get<{ head: string; commits: PulledCommit[]; has_more?: boolean }>(
          contractPath(ctx.id, "/pull"),
          q,
        );
        for (const c of page.commits) applyCommit(data, c);
        pulled += page.commits.length;
        if (page.commits.length > 0) pulledHead = page.commits[page.commits.length - 1]!.hash;
        if (!page.has_more) break;
      }
      if (ctx.stopped) return;
      mount(
        root,
        renderDataTree(data),
        pulled >= PULL_MAX ? h("p", { class: "muted" }, `Shown as of the first ${PULL_MAX} commits.`) : null,
      );
    },
  };
}
