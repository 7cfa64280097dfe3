/**
 * `#/`: the contracts a visitor may see (`GET /contracts`, paged), and a search by id. Each
 * row shows the full contract id and owner key, and its current state, filled in as each
 * contract's `GET /contracts/:id/state` answers.
 */
import { ApiError, get } from "../api.js";
import { h, mount, scrollTable, when } from "../dom.js";

interface Summary {
  contract_id: string;
  owner: string;
  created_at: number;
  head: string;
  commit_count: number;
  private?: boolean;
}

const PAGE = 50;

export async function contractsPage(app: HTMLElement, offset = 0): Promise<void> {
  const search = h("input", { type: "search", name: "id", placeholder: "contract id", "aria-label": "Contract id" });
  const form = h(
    "form",
    {
      class: "search",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const id = search.value.trim();
        if (id) location.hash = `#/c/${encodeURIComponent(id)}`;
      },
    },
    search,
    h("button", { type: "submit" }, "Open"),
  );
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  mount(app, h("h1", {}, "Contracts"), form, body);
  let page: { contracts: Summary[]; total: number };
  try {
    page = await get("/contracts", { limit: PAGE, offset });
  } catch (err) {
    mount(body, h("p", { class: "error" }, err instanceof ApiError ? err.message : String(err)));
    return;
  }
  const rows = page.contracts.map((c) =>
    h(
      "tr",
      { "data-contract": c.contract_id },
      h("td", {}, h("a", { href: `#/c/${encodeURIComponent(c.contract_id)}` }, c.contract_id)),
      h("td", { class: "state", "data-state": "" }, "…"),
      h("td", {}, h("code", { class: "key full" }, c.owner)),
      h("td", { class: "num" }, c.commit_count),
      h("td", {}, when(c.created_at)),
      h("td", {}, c.private ? h("span", { class: "badge" }, "private") : ""),
    ),
  );
  const nav = h(
    "p",
    { class: "pager" },
    // The hub lists the oldest first: the previous page holds older contracts, the next newer ones.
    offset > 0 ? h("a", { href: `#/?offset=${Math.max(0, offset - PAGE)}`, rel: "prev" }, "← older") : null,
    ` ${page.total === 0 ? 0 : offset + 1}–${offset + page.contracts.length} of ${page.total}, oldest first `,
    offset + PAGE < page.total ? h("a", { href: `#/?offset=${offset + PAGE}`, rel: "next" }, "newer →") : null,
  );
  if (page.contracts.length === 0 && page.total > 0) {
    // An offset past the end (an old bookmark, a hand-edited link): say so and offer the first page.
    mount(
      body,
      h(
        "p",
        { class: "muted", id: "past-end" },
        `No contracts from number ${offset + 1} on: ${page.total} are visible here. `,
        h("a", { href: "#/" }, "first page"),
      ),
    );
    return;
  }
  mount(
    body,
    page.total === 0
      ? h("p", { class: "muted" }, "No contracts are visible here yet.")
      : scrollTable(
          { class: "list" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, "Contract"),
              h("th", {}, "State"),
              h("th", {}, "Owner"),
              h("th", {}, "Commits"),
              h("th", {}, "Created"),
              h("th", {}),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
    nav,
  );
  void fillStates(
    rows,
    page.contracts.map((c) => c.contract_id),
  );
}

/** Fills each row's state cell, a few requests at a time so a full page does not flood the hub. */
async function fillStates(rows: HTMLElement[], ids: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      const cell = rows[i]?.querySelector("td.state");
      if (!cell) continue;
      try {
        const st = await get<{ current_state: string }>(`/contracts/${encodeURIComponent(ids[i]!)}/state`);
        cell.textContent = st.current_state || "(no model)";
        cell.setAttribute("data-state", st.current_state);
      } catch {
        cell.textContent = "?";
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}
