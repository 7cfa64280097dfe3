/**
 * Scores a synthesizer on the evaluation set: bench/synthesis/dev.json (the half the pattern
 * synthesizer is tuned on) and bench/synthesis/heldout.json (never tuned on). Per case
 * pass/fail with the failed expectations, then each half's total. Without arguments it uses
 * the provider the environment configures (ANTHROPIC_API_KEY / OPENAI_API_KEY, see
 * docs/synthesis.md), else the pattern synthesizer.
 * Usage: npx tsx bench/synthesis/score.ts [--patterns] [--split dev|heldout|all] [--quiet] [--json]
 *   --patterns  force the pattern synthesizer even when a key is configured
 *   --split     which half to run (default all: both, each reported on its own)
 *   --quiet     print only failures and totals
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { isContractError } from "../../src/contract/ContractError.js";
import { type Env, providerFromEnv, type SynthesisOptions, synthesize } from "../../src/synthesis/index.js";
import { type EvalCase, scoreCase } from "./scoreCase.js";

export type Split = "dev" | "heldout";
export const SPLITS: readonly Split[] = ["dev", "heldout"];

export interface CaseScore {
  id: string;
  pass: boolean;
  source?: string;
  failures: string[];
}

export interface SplitScore {
  split: Split;
  passed: number;
  total: number;
  cases: CaseScore[];
}

/** The evaluation cases of one half. */
export function loadCases(split: Split): EvalCase[] {
  const url = new URL(`./${split}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { cases: EvalCase[] }).cases;
}

/** Runs every case of `split` through `synthesize` with `options`; a refused or failed synthesis fails its case. */
export async function scoreAll(options: SynthesisOptions, split: Split = "dev"): Promise<SplitScore> {
  const cases: CaseScore[] = [];
  for (const c of loadCases(split)) {
    const body =
      c.pattern_hint === undefined
        ? { description: c.description }
        : { description: c.description, pattern_hint: c.pattern_hint };
    try {
      const result = await synthesize(body, options);
      const failures = scoreCase(c.expect, result);
      cases.push({ id: c.id, pass: failures.length === 0, source: result.source, failures });
    } catch (err) {
      if (!isContractError(err)) throw err;
      cases.push({ id: c.id, pass: false, failures: [`${err.code}: ${err.message}`] });
    }
  }
  return { split, passed: cases.filter((c) => c.pass).length, total: cases.length, cases };
}

function percent(s: SplitScore): string {
  return `${s.passed}/${s.total} (${Math.round((1000 * s.passed) / s.total) / 10}%)`;
}

async function run(argv: string[]): Promise<void> {
  const forcePatterns = argv.includes("--patterns");
  const options: SynthesisOptions = forcePatterns ? { provider: null } : { env: process.env as Env };
  const splitArg = argv.includes("--split") ? argv[argv.indexOf("--split") + 1] : "all";
  if (splitArg !== "all" && !SPLITS.includes(splitArg as Split)) {
    console.error(`--split must be dev, heldout or all, got ${JSON.stringify(splitArg)}`);
    process.exitCode = 2;
    return;
  }
  const splits = splitArg === "all" ? SPLITS : [splitArg as Split];
  const provider = forcePatterns ? null : providerFromEnv(process.env as Env);
  const synthesizer = provider === null ? "patterns (no language model)" : `${provider.name} ${provider.model}`;
  const scores: SplitScore[] = [];
  for (const split of splits) scores.push(await scoreAll(options, split));
  if (argv.includes("--json")) {
    console.log(JSON.stringify({ synthesizer, scores }, null, 2));
    return;
  }
  const quiet = argv.includes("--quiet");
  for (const s of scores) {
    for (const c of s.cases) {
      if (quiet && c.pass) continue;
      console.log(`${c.pass ? "PASS" : "FAIL"} ${s.split}/${c.id}${c.source ? ` (${c.source})` : ""}`);
      for (const f of c.failures) console.log(`     ${f}`);
    }
  }
  console.log(`synthesizer: ${synthesizer}`);
  for (const s of scores) console.log(`${s.split}: ${percent(s)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run(process.argv.slice(2));
}
