import { checkAtInitial } from "../../src/lang/check.js";
import { compileModel, type Lts } from "../../src/lang/Lts.js";
import { parseModel, parseRule } from "../../src/lang/parser.js";
import type { SynthesisResult } from "../../src/synthesis/SynthesisResult.js";

export interface Expectations {
  parties_include?: string[];
  signers_include?: string[];
  actions?: string[];
  actions_like?: string[];
  signed_actions?: Array<{ action: string; by: string }>;
  cosigned_by?: string[];
  threshold?: number;
  predicates?: string[];
  formulas?: string[];
  min_rules?: number;
  protections_for?: string[];
  parties_exclude?: string[];
  predicates_any?: string[];
  patterns_include?: string[];
  patterns_any?: string[];
}

export interface EvalCase {
  id: string;
  description: string;
  pattern_hint?: string;
  expect: Expectations;
}

type Transition = Lts["transitions"][number];

const user = (p: string) => `/users/${p}.id`;
const carries = (t: Transition, name: string, arg0?: string) =>
  t.label.some((p) => p.sign === "+" && p.name === name && (arg0 === undefined || p.args?.[0] === arg0));

/** Transitions reachable from the initial states. */
function reachable(lts: Lts): Transition[] {
  const seen = new Set<number>(lts.initialStates);
  const queue = [...lts.initialStates];
  const out: Transition[] = [];
  while (queue.length > 0) {
    const s = queue.shift()!;
    for (const t of lts.transitions) {
      if (t.from !== s) continue;
      out.push(t);
      if (!seen.has(t.to)) {
        seen.add(t.to);
        queue.push(t.to);
      }
    }
  }
  return out;
}

/** The expectations a synthesis result fails, as short texts (empty when it passes). */
export function scoreCase(expect: Expectations, result: SynthesisResult): string[] {
  const failures: string[] = [];
  let lts: Lts;
  try {
    lts = compileModel(parseModel(result.model));
  } catch (err) {
    return [`model does not compile: ${(err as Error).message}`];
  }
  const edges = reachable(lts);
  const labels = edges.flatMap((t) => t.label.filter((p) => p.sign === "+" && p.args === null).map((p) => p.name));
  for (const p of expect.parties_include ?? []) if (!result.parties.includes(p)) failures.push(`party ${p} missing`);
  for (const p of expect.signers_include ?? []) {
    if (!lts.transitions.some((t) => carries(t, "signed_by", user(p)))) failures.push(`no transition signed by ${p}`);
  }
  for (const a of expect.actions ?? []) if (!labels.includes(a)) failures.push(`action ${a} missing`);
  for (const a of expect.actions_like ?? []) {
    if (!labels.some((l) => l.includes(a))) failures.push(`no action label contains ${a}`);
  }
  for (const { action, by } of expect.signed_actions ?? []) {
    const withAction = lts.transitions.filter((t) => carries(t, action));
    if (withAction.length === 0) failures.push(`action ${action} missing`);
    else if (!withAction.every((t) => carries(t, "signed_by", user(by))))
      failures.push(`${action} not always signed by ${by}`);
  }
  if (expect.cosigned_by) {
    const all = expect.cosigned_by;
    const ok = edges.some(
      (t) =>
        all.every((p) => carries(t, "signed_by", user(p))) ||
        t.label.some((p) => p.sign === "+" && p.name === "threshold" && Number(p.args?.[0]) >= all.length) ||
        carries(t, "all_signed"),
    );
    if (!ok) failures.push(`no transition needs all of ${all.join(", ")}`);
  }
  if (
    expect.threshold !== undefined &&
    !lts.transitions.some((t) => carries(t, "threshold", String(expect.threshold)))
  ) {
    failures.push(`no +threshold(${expect.threshold}, …)`);
  }
  for (const name of expect.predicates ?? []) {
    if (!lts.transitions.some((t) => t.label.some((p) => p.name === name))) failures.push(`predicate ${name} unused`);
  }
  for (const f of expect.formulas ?? []) {
    try {
      if (!checkAtInitial(lts, parseRule(f).formula).holds) failures.push(`formula fails: ${f}`);
    } catch (err) {
      failures.push(`formula not checkable: ${f}: ${(err as Error).message}`);
    }
  }
  if (expect.min_rules !== undefined && result.rules.length < expect.min_rules) {
    failures.push(`${result.rules.length} rules, expected at least ${expect.min_rules}`);
  }
  for (const p of expect.protections_for ?? []) if (!result.protections[p]) failures.push(`no protection for ${p}`);
  for (const p of expect.parties_exclude ?? []) if (result.parties.includes(p)) failures.push(`party ${p} present`);
  const used = (name: string) => lts.transitions.some((t) => t.label.some((p) => p.name === name));
  if (expect.predicates_any && !expect.predicates_any.some(used)) {
    failures.push(`none of the predicates ${expect.predicates_any.join(", ")} used`);
  }
  const patterns = result.patterns ?? [];
  for (const p of expect.patterns_include ?? []) if (!patterns.includes(p)) failures.push(`pattern ${p} not used`);
  if (expect.patterns_any && !expect.patterns_any.some((p) => patterns.includes(p))) {
    failures.push(`none of the patterns ${expect.patterns_any.join(", ")} used`);
  }
  return failures;
}
