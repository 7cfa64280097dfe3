/**
 * `#/synthesize`: a description in, a model and rules out, drawn as a diagram before anything
 * is created. The answer says how it was made (language model or patterns, which patterns,
 * how confident) and what it guessed or left out (warnings). Synthesis stores nothing;
 * creating the contract is left to a client with keys.
 */
import { ApiError, post } from "../api.js";
import { h, mount } from "../dom.js";
import { modelPreview } from "../modelPreview.js";

interface Synthesis {
  model: string;
  rules: string[];
  parties?: string[];
  protections?: Record<string, string>;
  source?: string;
  patterns?: string[];
  confidence?: number;
  warnings?: string[];
}

interface Closest {
  pattern: string;
  summary?: string;
}

/** Confidence as a badge: green when high, amber in between, red when low. */
function confidenceBadge(c: number | undefined): HTMLElement | null {
  if (typeof c !== "number") return null;
  const level = c >= 0.8 ? "ok" : c >= 0.6 ? "" : "bad";
  return h(
    "span",
    { class: `badge ${level}`.trim(), "data-field": "confidence", title: "How sure the synthesizer is (0 to 100%)" },
    `confidence ${Math.round(c * 100)}%`,
  );
}

function resultView(r: Synthesis): Node[] {
  const warnings = r.warnings ?? [];
  return [
    h(
      "p",
      { class: "synth-summary" },
      r.source ? h("span", { class: "badge", "data-field": "source" }, `from ${r.source}`) : null,
      " ",
      r.patterns?.length ? h("span", { class: "badge", "data-field": "patterns" }, r.patterns.join(" + ")) : null,
      " ",
      confidenceBadge(r.confidence),
      r.parties?.length ? ` Parties: ${r.parties.join(", ")}` : "",
    ),
    warnings.length > 0
      ? h(
          "section",
          { class: "synth-warnings" },
          h("h2", {}, "Warnings"),
          h("ul", {}, ...warnings.map((w) => h("li", { class: "warning" }, w))),
        )
      : h("p", { class: "muted synth-warnings" }, "No warnings: nothing was guessed or left out."),
    r.protections
      ? h(
          "ul",
          { class: "protections" },
          ...Object.entries(r.protections).map(([who, what]) => h("li", {}, h("b", {}, who), `: ${what}`)),
        )
      : h("span"),
    modelPreview(r.model, r.rules),
  ];
}

export function synthesizePage(app: HTMLElement): void {
  const description = h("textarea", {
    name: "description",
    rows: 4,
    placeholder: "e.g. Alice buys a bike from Bob; Carol arbitrates disputes",
    "aria-label": "Description",
  });
  const hint = h("input", {
    name: "pattern_hint",
    placeholder: "pattern hint (optional): escrow, deposit, loan, multisig…",
  });
  const out = h("div", { id: "synthesis" });

  /** A 503 names the closest patterns: each can be tried as a hint. */
  const unavailableView = (err: ApiError): Node[] => {
    const closest = ((err.body as { details?: { closest?: Closest[] } })?.details?.closest ?? []).filter(
      (c) => typeof c.pattern === "string",
    );
    return [
      h("p", { class: "error" }, `Synthesis is not available for this description: ${err.message}`),
      closest.length > 0
        ? h(
            "ul",
            { class: "closest" },
            ...closest.map((c) =>
              h(
                "li",
                {},
                h(
                  "button",
                  {
                    type: "button",
                    "data-pattern": c.pattern,
                    onclick: () => {
                      hint.value = c.pattern;
                      void run();
                    },
                  },
                  `Try as ${c.pattern}`,
                ),
                c.summary ? ` ${c.summary}` : "",
              ),
            ),
          )
        : h("span"),
    ];
  };

  // Only the latest submission's answer is shown: an earlier one that answers later (a language
  // model is slower than the patterns) would otherwise replace it.
  let latest = 0;
  const run = async () => {
    const mine = ++latest;
    mount(out, h("p", { class: "muted" }, "Synthesizing…"));
    const show = (...nodes: Node[]) => {
      if (mine === latest) mount(out, ...nodes);
    };
    try {
      const body = {
        description: description.value,
        ...(hint.value.trim() ? { pattern_hint: hint.value.trim() } : {}),
      };
      show(...resultView(await post<Synthesis>("/contracts/synthesize", body)));
    } catch (err) {
      if (err instanceof ApiError && err.status === 503) show(...unavailableView(err));
      else show(h("p", { class: "error" }, err instanceof Error ? err.message : String(err)));
    }
  };
  mount(
    app,
    h("h1", {}, "Synthesize a contract"),
    h("p", { class: "muted" }, "Describe the agreement; the hub proposes a model and rules. Nothing is created."),
    h(
      "form",
      {
        class: "synth",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void run();
        },
      },
      description,
      hint,
      h("button", { type: "submit" }, "Synthesize"),
    ),
    out,
  );
}
