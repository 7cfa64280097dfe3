/**
 * Scores a synthesizer on bench/synthesis/cases.json: per case pass/fail with the failed
 * expectations, then the total. Without arguments it uses the provider the environment
 * configures (ANTHROPIC_API_KEY / OPENAI_API_KEY, see docs/synthesis.md), else the pattern
 * synthesizer; `--patterns` forces the pattern synthesizer; `--json` prints one JSON document.
 * Usage: npx tsx bench/synthesis/score.ts [--patterns] [--json]
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { isContractError } from "../../src/contract/ContractError.js";
import { type Env, type SynthesisOptions, synthesize } from "../../src/synthesis/index.js";
import { type EvalCase, scoreCase } from "./scoreCase.js";

export interface CaseScore {
  id: string;
  pass: boolean;
  source?: string;
  failures: string[];
}

/** The evaluation cases. */
export function loadCases(): EvalCase[] {
  const url = new URL("./cases.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { cases: EvalCase[] }).cases;
}

/** Runs every case through `synthesize` with `options`; a refused or failed synthesis fails its case. */
export async function scoreAll(
  options: SynthesisOptions,
): Promise<{ passed: number; total: number; cases: CaseScore[] }> {
  const cases: CaseScore[] = [];
  for (const c of loadCases()) {
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
  return { passed: cases.filter((c) => c.pass).length, total: cases.length, cases };
}

async function run(argv: string[]): Promise<void> {
  const options: SynthesisOptions = argv.includes("--patterns") ? { provider: null } : { env: process.env as Env };
  const score = await scoreAll(options);
  if (argv.includes("--json")) {
    console.log(JSON.stringify(score, null, 2));
    return;
  }
  for (const c of score.cases) {
    console.log(`${c.pass ? "PASS" : "FAIL"} ${c.id}${c.source ? ` (${c.source})` : ""}`);
    for (const f of c.failures) console.log(`     ${f}`);
  }
  console.log(`total: ${score.passed}/${score.total}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run(process.argv.slice(2));
}
