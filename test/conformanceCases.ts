/**
 * Reads the language conformance cases (shared data and our fixture copies) and states what
 * our parser must return for each: the reference result, except where README's deviation
 * table says our superset grammar parses.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReferenceModel } from "./referenceForm.js";

export const PARSE_CATEGORIES = ["parse-model", "parse-formula", "rule-extract"] as const;
export type ParseCategory = (typeof PARSE_CATEGORIES)[number];

/** What one parse must give: reference-form data when it parses, ParseError fields when not. */
export type Expectation =
  | { ok: true; model?: ReferenceModel; models?: string[]; ast?: string }
  | { ok: false; line?: number; column?: number; expected?: string[] };

export interface ConformanceCase {
  file: string;
  name: string;
  category: ParseCategory;
  source: string;
  expect: string;
  result?: Record<string, unknown>;
  rust?: { ok: boolean; ast?: string };
  /** Only in our fixture copies: our own expected result, with error positions. */
  ours?: Expectation;
}

export interface Check {
  label: string;
  source: string;
  expectation: Expectation;
}

const repoRoot = new URL("..", import.meta.url).pathname;
/** Where CI puts the shared conformance data, beside the clone. */
export const SHARED_DIR = join(repoRoot, "../shared/conformance/language");
export const FIXTURE_DIR = join(repoRoot, "test/fixtures/language");

/** Every parse case (numbered JSON file of a parse category) in `dir`, in file order. */
export function loadCases(dir: string): ConformanceCase[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-.*\.json$/.test(f))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<ConformanceCase, "file">) }))
    .filter((c) => (PARSE_CATEGORIES as readonly string[]).includes(c.category));
}

const model = (name: string, initial: string | null, direct: string[]): Expectation => ({
  ok: true,
  model: { name, initial, parts: [], direct_transitions: direct },
});

/** README "Where our language deliberately differs": cases the reference rejects and we parse. */
export const DEVIATIONS: Readonly<Record<string, Expectation>> = {
  "007": model("members_only", "q0", ["q0 -> q0 []"]),
  "009": model("default", "idle", [
    'deposited -> refunded [+signed_by("/users/buyer.id") +signed_by("/users/seller.id")]',
  ]),
  "010": model("default", "idle", ['proposed -> approved [+threshold("3", "/treasury/signers")]']),
  "011": model("M", "q0", ["q0 -> q1 [+POST]"]),
  "012": model("witness", "q0", ["q0 -> q1 [+START]"]),
  "014": model("M", "q0", ['q0 -> q1 [+oracle_attests("/oracles/price-feed.id", "price > 100")]']),
  "027": { ok: true, ast: "Until(Prop(p), Prop(q))" },
  "038": { ok: true, ast: "Always(Diamond([+POST], True))" },
};

/**
 * Variant sources the reference computed a result for alongside the case's own source
 * (`result.quoted` for 010, …): how to rewrite the source, and which result key applies.
 */
const VARIANTS: Readonly<Record<string, { key: string; rewrite: (s: string) => string }>> = {
  "010": { key: "quoted", rewrite: (s) => s.replace("(3,", '("3",') },
  "011": { key: "full_line", rewrite: (s) => s.replace(" // trailing comment", "\n  // trailing comment") },
  "013": { key: "longer_identifier", rewrite: (s) => s.replace("-> next ", "-> next_step ") },
  "014": { key: "underscore", rewrite: (s) => s.replace("price-feed", "price_feed") },
};

function fromResult(r: unknown): Extract<Expectation, { ok: true }> | undefined {
  if (typeof r !== "object" || r === null) return undefined;
  const o = r as { ok?: boolean; model?: ReferenceModel; ast?: string; models?: string[] };
  if (o.ok === true && (o.model !== undefined || o.ast !== undefined)) return { ok: true, model: o.model, ast: o.ast };
  return undefined;
}

/** The checks a shared case implies for our parser, derived from the reference result. */
export function checksFor(c: ConformanceCase): Check[] {
  const id = c.file.slice(0, 3);
  const checks: Check[] = [];
  const own = DEVIATIONS[id];
  if (own !== undefined) {
    checks.push({ label: `${c.name} (deviation: parses in ours)`, source: c.source, expectation: own });
  } else if (c.category === "parse-formula") {
    const r = c.rust!;
    checks.push({ label: c.name, source: c.source, expectation: r.ok ? { ok: true, ast: r.ast } : { ok: false } });
  } else if (c.expect.startsWith("parse-error")) {
    checks.push({ label: c.name, source: c.source, expectation: { ok: false } });
  } else {
    const r = c.result ?? {};
    const first = fromResult(r) ?? fromResult(r.first_model) ?? Object.values(r).map(fromResult).find(Boolean);
    if (first === undefined) throw new Error(`${c.file}: no reference result to compare with`);
    const all = (r.all_models as { models?: string[] } | undefined)?.models;
    checks.push({ label: c.name, source: c.source, expectation: all ? { ...first, models: all } : first });
  }
  const variant = VARIANTS[id];
  const variantResult = variant && fromResult(c.result?.[variant.key]);
  if (variant && variantResult) {
    checks.push({ label: `${c.name} (${variant.key})`, source: variant.rewrite(c.source), expectation: variantResult });
  }
  return checks;
}
