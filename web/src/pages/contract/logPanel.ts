/** The paged log, newest page first, with its pager. */
import { contractPath, get } from "../../api.js";
import { h, mount, preview, scrollTable, shortKey, when } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

interface LogEntry {
  index: number;
  hash: string;
  method: string;
  path?: string;
  value?: unknown;
  signers?: string[];
  timestamp: number;
  action_labels?: string[];
}

const LOG_PAGE = 20;

export function logPanel(ctx: ContractPageContext): Panel {
  const root = h("div", { id: "log" });
  let logOffset: number | null = null; // null: the newest page

  const refresh = async () => {
    const total = ctx.state?.commit_count ?? 0;
    const offset = logOffset ?? Math.max(0, total - LOG_PAGE);
    // The hub ends a page early once its values pass a size bound (each entry carries its
    // value, up to a megabyte): ask on from where the answer stopped until the page is full, or
    // the newest page would show its oldest entries and never the newest.
    const page = { commits: [] as LogEntry[], total };
    while (page.commits.length < LOG_PAGE) {
      const part = await get<{ commits: LogEntry[]; total: number }>(contractPath(ctx.id, "/log"), {
        limit: LOG_PAGE - page.commits.length,
        offset: offset + page.commits.length,
      });
      page.commits.push(...part.commits);
      page.total = part.total;
      if (part.commits.length === 0 || offset + page.commits.length >= part.total) break;
    }
    if (ctx.stopped) return;
    const rows = [...page.commits]
      .reverse()
      .map((c) =>
        h(
          "tr",
          { "data-index": c.index },
          h("td", { class: "num" }, c.index),
          h("td", {}, when(c.timestamp)),
          h("td", {}, h("span", { class: `method m-${c.method}` }, c.method)),
          h("td", {}, ...(c.action_labels ?? []).map((a) => h("span", { class: "badge action" }, a))),
          h(
            "td",
            {},
            c.path ? h("code", {}, c.path) : "",
            c.value !== undefined ? h("span", { class: "muted" }, ` = ${preview(c.value, 60)}`) : "",
          ),
          h("td", {}, ...(c.signers ?? []).map((k) => shortKey(k))),
          h("td", {}, h("code", { title: c.hash }, c.hash.slice(0, 10))),
        ),
      );
    const older = offset > 0;
    const newer = offset + LOG_PAGE < page.total;
    mount(
      root,
      scrollTable(
        { class: "list log" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["#", "Time", "Method", "Actions", "Path and value", "Signers", "Hash"].map((t) => h("th", {}, t)),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
      h(
        "p",
        { class: "pager" },
        // A long log (thousands of commits) is reached at either end in one click, not a page at a time.
        newer
          ? h("button", { type: "button", "data-page": "newest", onclick: () => pageTo(page.total) }, "« newest")
          : null,
        " ",
        newer
          ? h(
              "button",
              {
                type: "button",
                "data-page": "newer",
                onclick: () => pageTo(Math.min(page.total - LOG_PAGE, offset + LOG_PAGE)),
              },
              "← newer",
            )
          : null,
        ` commits ${offset}–${offset + page.commits.length - 1} of ${page.total} `,
        older
          ? h(
              "button",
              { type: "button", "data-page": "older", onclick: () => pageTo(Math.max(0, offset - LOG_PAGE)) },
              "older →",
            )
          : null,
        " ",
        older ? h("button", { type: "button", "data-page": "oldest", onclick: () => pageTo(0) }, "oldest »") : null,
      ),
    );
  };
  const pageTo = (offset: number) => {
    logOffset = offset + LOG_PAGE >= (ctx.state?.commit_count ?? 0) ? null : offset;
    ctx.enqueue(refresh);
  };

  return { root: h("section", {}, h("h2", {}, "Log"), root), refresh };
}
