/**
 * `#/`: the contracts a visitor may see (`GET /contracts`, paged), and a search by id. Each
 * row shows the full contract id and owner key, and its current state: the page's one request
 * asks the list with each contract's state (`include=state`), and the states are kept by head
 * for when the hub refuses that (the visitor's work budget spent).
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
  /** With `include=state`; null when the hub could not show it to this visitor. */
  state?: { current_state: string } | null;
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
    page = await listPage(offset);
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
  fillStates(rows, page.contracts);
}

/**
 * The page of the list with each contract's state. Loading states the hub does not hold in
 * memory is paid from the visitor's work budget; once that is spent the hub refuses the list
 * with states (429), and the list alone is asked for instead: its rows show the states kept
 * from earlier visits, and "?" for the others.
 */
async function listPage(offset: number): Promise<{ contracts: Summary[]; total: number }> {
  try {
    return await get("/contracts", { limit: PAGE, offset, include: "state" });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 429)) throw err;
    return get("/contracts", { limit: PAGE, offset });
  }
}

/**
 * Current states already shown, by contract id and head: a head fixes the state (a change of
 * model or rules is a commit too), so a row whose head has not moved since can be filled from
 * here when the hub answers the list without states. Bounded; the oldest entries go first.
 */
const statesByHead = new Map<string, string>();
const STATES_KEPT = 2000;

function remember(id: string, head: string, state: string): void {
  const key = `${id} ${head}`;
  statesByHead.delete(key);
  statesByHead.set(key, state);
  if (statesByHead.size > STATES_KEPT) statesByHead.delete(statesByHead.keys().next().value!);
}

/** Fills each row's state cell from the list's answer, else from `statesByHead`, else "?". */
function fillStates(rows: HTMLElement[], contracts: Summary[]): void {
  rows.forEach((row, i) => {
    const c = contracts[i]!;
    const cell = row.querySelector("td.state");
    if (!cell) return;
    if (c.state) remember(c.contract_id, c.head, c.state.current_state);
    const state = c.state?.current_state ?? statesByHead.get(`${c.contract_id} ${c.head}`);
    if (state === undefined) {
      cell.textContent = "?";
      return;
    }
    cell.textContent = state || "(no model)";
    cell.setAttribute("data-state", state);
  });
}
