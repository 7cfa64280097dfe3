/**
 * `#/c/<id>`: one contract. The model as a diagram with the current states and the valid next
 * actions, explanations of rejected commits drawn on it, the rules checked at the current
 * states, the data state, the paged log and the assets; kept current over the WebSocket.
 */
import { ApiError, contractPath, get, optional } from "../api.js";
import { applyCommit, type PulledCommit, renderDataTree } from "../dataState.js";
import { type DiagramMarks, renderDiagram, type ValidActionLike } from "../diagram.js";
import { h, mount, preview, shortKey, when } from "../dom.js";
import { type Explanation, explanationMarks, readExplanation, renderExplanation } from "../explain.js";
import { type LiveStatus, subscribeCommits } from "../live.js";
import { type ModelView, modelView, ruleView, statesNamed } from "../modelView.js";

interface StateView {
  current_state: string;
  current_states?: string[];
  valid_actions: (ValidActionLike & { required_signer: string })[];
  commit_count: number;
  head: string;
}
interface Contract {
  contract_id: string;
  model: string | null;
  rules: string[];
  state: StateView;
  created_at: number;
}
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
const PULL_PAGE = 1000;
/** The data tree replays at most this many commits; past it the page says the tree is partial. */
const PULL_MAX = 20_000;

export function contractPage(app: HTMLElement, id: string, setLive: (s: LiveStatus | null) => void): () => void {
  const els = {
    meta: h("div", { class: "meta" }),
    diagram: h("div", { class: "diagram-box", id: "diagram" }),
    actions: h("div", { id: "valid-actions" }),
    explain: h("div", { id: "explain-out" }),
    rules: h("div", { id: "rules" }),
    data: h("div", { id: "data" }),
    log: h("div", { id: "log" }),
    assets: h("section", { id: "assets", hidden: true }),
  };
  const paste = h("textarea", {
    id: "explain-input",
    rows: 5,
    placeholder:
      'Paste a rejected commit\'s error body, e.g. {"error": "...", "code": "VALIDATION_FAILED", "details": {...}}',
  });
  mount(
    app,
    h("h1", {}, "Contract ", h("code", {}, id)),
    els.meta,
    h("section", {}, h("h2", {}, "Model"), els.diagram, els.actions),
    h(
      "section",
      { id: "explain" },
      h("h2", {}, "Explain a rejected commit"),
      paste,
      h(
        "p",
        {},
        h("button", { type: "button", id: "explain-button", onclick: () => explain(paste.value) }, "Explain"),
        " ",
        h("button", { type: "button", onclick: () => clearExplanation() }, "Clear"),
      ),
      els.explain,
    ),
    h("section", {}, h("h2", {}, "Rules"), els.rules),
    h("section", {}, h("h2", {}, "Data state"), els.data),
    h("section", {}, h("h2", {}, "Log"), els.log),
    els.assets,
  );

  let contract: Contract | null = null;
  let view: ModelView | null = null;
  let state: StateView | null = null;
  let marks: DiagramMarks["path"] | undefined;
  const data = new Map<string, unknown>();
  let pulledHead: string | null = null;
  let pulled = 0;
  let logOffset: number | null = null; // null: the newest page
  let stopped = false;
  let stopLive: (() => void) | null = null;
  // Updates run one after another, so a slow answer never overwrites a newer one.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (f: () => Promise<void>) => {
    queue = queue.then(f).catch((err) => showError(err));
  };

  const showError = (err: unknown) => {
    if (stopped) return;
    const text =
      err instanceof ApiError && err.status === 404
        ? `No contract "${id}" is visible here (it does not exist, or it is private).`
        : err instanceof Error
          ? err.message
          : String(err);
    mount(els.meta, h("p", { class: "error" }, text));
  };

  const current = () =>
    view && state ? statesNamed(view, state.current_states ?? state.current_state.split("|")) : [];

  const drawMeta = () => {
    if (!contract || !state) return;
    mount(
      els.meta,
      h(
        "p",
        {},
        "Current state ",
        h("span", { class: "badge current-state", id: "current-state" }, state.current_state || "(no model)"),
        ` · ${state.commit_count} commit${state.commit_count === 1 ? "" : "s"} · created ${when(contract.created_at)} · head `,
        h("code", { title: state.head }, state.head.slice(0, 12)),
      ),
    );
  };

  const drawDiagram = () => {
    if (!contract || !state) return;
    if (contract.model === null || view === null) {
      mount(
        els.diagram,
        h(
          "p",
          { class: "muted" },
          contract.model === null ? "This contract has no model." : "The model could not be read.",
        ),
      );
      mount(els.actions);
      return;
    }
    mount(
      els.diagram,
      renderDiagram(view, { current: current(), valid: state.valid_actions, ...(marks ? { path: marks } : {}) }),
    );
    mount(
      els.actions,
      state.valid_actions.length === 0
        ? h("p", { class: "muted" }, "No action may follow from the current state.")
        : h(
            "table",
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
  };

  const drawRules = () => {
    if (!contract) return;
    if (contract.rules.length === 0) {
      mount(els.rules, h("p", { class: "muted" }, "No rules."));
      return;
    }
    const at = current();
    mount(
      els.rules,
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
          return h(
            "li",
            { "data-rule": i, "data-holds": String(r.holds) },
            verdict,
            " ",
            r.name ? h("b", {}, r.name, " ") : null,
            h("code", { class: "formula" }, r.formula),
            h("span", { class: "muted" }, ` anchored at ${r.anchor}`),
            r.error ? h("div", { class: "error" }, r.error) : null,
            r.counterexample
              ? h(
                  "div",
                  {},
                  `Counterexample: ${r.counterexample.path.join(" → ")} `,
                  h(
                    "button",
                    {
                      type: "button",
                      onclick: () => {
                        if (!view) return;
                        marks = explanationMarks(view, {
                          code: "",
                          message: "",
                          details: { counterexample: r.counterexample! },
                        });
                        drawDiagram();
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
  };

  const loadLog = async () => {
    const total = state?.commit_count ?? 0;
    const offset = logOffset ?? Math.max(0, total - LOG_PAGE);
    const page = await get<{ commits: LogEntry[]; total: number }>(contractPath(id, "/log"), {
      limit: LOG_PAGE,
      offset,
    });
    if (stopped) return;
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
      els.log,
      h(
        "table",
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
        newer
          ? h(
              "button",
              { type: "button", onclick: () => pageLog(Math.min(page.total - LOG_PAGE, offset + LOG_PAGE)) },
              "← newer",
            )
          : null,
        ` commits ${offset}–${offset + page.commits.length - 1} of ${page.total} `,
        older
          ? h("button", { type: "button", onclick: () => pageLog(Math.max(0, offset - LOG_PAGE)) }, "older →")
          : null,
      ),
    );
  };
  const pageLog = (offset: number) => {
    logOffset = offset + LOG_PAGE >= (state?.commit_count ?? 0) ? null : offset;
    enqueue(loadLog);
  };

  const loadData = async () => {
    for (;;) {
      if (pulled >= PULL_MAX) break;
      const q = { limit: PULL_PAGE, ...(pulledHead ? { since: pulledHead } : {}) };
      const page = await get<{ head: string; commits: PulledCommit[]; has_more?: boolean }>(
        contractPath(id, "/pull"),
        q,
      );
      for (const c of page.commits) applyCommit(data, c);
      pulled += page.commits.length;
      if (page.commits.length > 0) pulledHead = page.commits[page.commits.length - 1]!.hash;
      if (!page.has_more) break;
    }
    if (stopped) return;
    mount(
      els.data,
      renderDataTree(data),
      pulled >= PULL_MAX ? h("p", { class: "muted" }, `Shown as of the first ${PULL_MAX} commits.`) : null,
    );
  };

  const loadAssets = async () => {
    const a = await optional<{
      assets: { asset_id: string; quantity: number; divisibility: number }[];
      balances: { asset_id: string; issuer: string; amount: number }[];
    }>(contractPath(id, "/assets"));
    if (stopped || a === null) return;
    els.assets.hidden = false;
    mount(
      els.assets,
      h("h2", {}, "Assets"),
      a.assets.length === 0
        ? h("p", { class: "muted" }, "No assets created in this contract.")
        : h(
            "table",
            { class: "list" },
            h("thead", {}, h("tr", {}, h("th", {}, "Asset"), h("th", {}, "Quantity"), h("th", {}, "Divisibility"))),
            h(
              "tbody",
              {},
              ...a.assets.map((x) =>
                h(
                  "tr",
                  {},
                  h("td", {}, x.asset_id),
                  h("td", { class: "num" }, x.quantity),
                  h("td", { class: "num" }, x.divisibility),
                ),
              ),
            ),
          ),
      h("h3", {}, "Balances held"),
      a.balances.length === 0
        ? h("p", { class: "muted" }, "None.")
        : h(
            "table",
            { class: "list" },
            h("thead", {}, h("tr", {}, h("th", {}, "Asset"), h("th", {}, "Issuer"), h("th", {}, "Amount"))),
            h(
              "tbody",
              {},
              ...a.balances.map((x) =>
                h("tr", {}, h("td", {}, x.asset_id), h("td", {}, x.issuer), h("td", { class: "num" }, x.amount)),
              ),
            ),
          ),
    );
  };

  const loadContract = async () => {
    contract = await get<Contract>(contractPath(id));
    state = contract.state;
    try {
      view = contract.model === null ? null : modelView(contract.model);
    } catch {
      view = null;
    }
  };

  const explain = (text: string) => {
    let ex: Explanation;
    try {
      ex = readExplanation(text);
    } catch (err) {
      mount(els.explain, h("p", { class: "error" }, `Not an error body: ${(err as Error).message}`));
      return;
    }
    mount(els.explain, renderExplanation(ex));
    marks = view ? explanationMarks(view, ex) : undefined;
    drawDiagram();
  };
  const clearExplanation = () => {
    marks = undefined;
    mount(els.explain);
    drawDiagram();
  };

  const drawAll = () => {
    drawMeta();
    drawDiagram();
    drawRules();
  };

  enqueue(async () => {
    await loadContract();
    if (stopped) return;
    drawAll();
    await Promise.all([loadLog(), loadData(), loadAssets()]);
    if (stopped) return;
    stopLive = subscribeCommits(
      id,
      state!.commit_count,
      (n) => {
        // The event carries the new state: redraw at once, then catch the rest up in order.
        state = n.state as StateView;
        drawAll();
        const method = n.commit.method;
        enqueue(async () => {
          if (method === "model" || method === "rule") {
            await loadContract();
            drawAll();
          }
          await Promise.all([loadLog(), loadData(), loadAssets()]);
        });
      },
      setLive,
    );
  });

  return () => {
    stopped = true;
    stopLive?.();
    setLive(null);
  };
}
