/**
 * `#/`: the contracts a visitor may see (`GET /contracts`, paged), and a search by id. Each
 * row shows the full contract id and owner key, and its current state: read with
 * `GET /contracts/:id/state` once the row is on screen, and kept by head for the next visit.
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
  fillStates(rows, page.contracts);
}

/**
 * Current states already read, by contract id and head: a head fixes the state (a change of
 * model or rules is a commit too), so a row whose head has not moved since is filled from here,
 * and coming back to the list asks nothing again for it. Bounded; the oldest entries go first.
 */
const statesByHead = new Map<string, string>();
const STATES_KEPT = 2000;

function remember(id: string, head: string, state: string): void {
  const key = `${id} ${head}`;
  statesByHead.delete(key);
  statesByHead.set(key, state);
  if (statesByHead.size > STATES_KEPT) statesByHead.delete(statesByHead.keys().next().value!);
}

function show(cell: Element, state: string): void {
  cell.textContent = state || "(no model)";
  cell.setAttribute("data-state", state);
}

/** Rows this far below (or above) the screen are read before they come into view. */
const AHEAD = "200px";

/**
 * Fills each row's state cell: from `statesByHead` when its head is known, otherwise with a
 * `GET /contracts/:id/state` once the row is on (or near) the screen, a few at a time. A page of
 * 50 contracts of which a visitor sees ten asks about ten, not 50.
 */
function fillStates(rows: HTMLElement[], contracts: Summary[]): void {
  const queue: number[] = [];
  let running = 0;
  const work = async () => {
    running++;
    try {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const cell = rows[i]!.querySelector("td.state");
        // The visitor has moved on: this list is gone, and so is the need to ask.
        if (!cell || !rows[i]!.isConnected) continue;
        const c = contracts[i]!;
        try {
          const st = await get<{ current_state: string; head: string }>(
            `/contracts/${encodeURIComponent(c.contract_id)}/state`,
          );
          remember(c.contract_id, st.head, st.current_state);
          show(cell, st.current_state);
        } catch {
          cell.textContent = "?";
        }
      }
    } finally {
      running--;
    }
  };
  const ask = (i: number) => {
    queue.push(i);
    if (running < 4) void work();
  };
  const observer =
    typeof IntersectionObserver === "function"
      ? new IntersectionObserver(
          (entries) => {
            for (const e of entries) {
              if (!e.isIntersecting) continue;
              observer!.unobserve(e.target);
              ask(rows.indexOf(e.target as HTMLElement));
            }
          },
          { rootMargin: `${AHEAD} 0px` },
        )
      : null;
  rows.forEach((row, i) => {
    const c = contracts[i]!;
    const known = statesByHead.get(`${c.contract_id} ${c.head}`);
    const cell = row.querySelector("td.state");
    if (known !== undefined && cell) show(cell, known);
    else if (observer) observer.observe(row);
    else ask(i);
  });
}
