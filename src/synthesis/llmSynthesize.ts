import { ContractError } from "../contract/ContractError.js";
import { DEFAULT_LIMITS } from "../contract/limits.js";
import { ANSWER_SCHEMA, ANSWER_SCHEMA_NAME } from "./answerSchema.js";
import { buildPrompt, promptText } from "./buildPrompt.js";
import { cancelledError } from "./cancelledError.js";
import type { CandidateCheck } from "./checkCandidate.js";
import type { LlmPrompt, LlmProvider } from "./LlmProvider.js";
import { type ParsedAnswer, parseAnswer } from "./parseAnswer.js";
import { patternSynthesize } from "./patternSynthesize.js";
import { familyForHint } from "./patterns/families.js";
import { templateForHint } from "./recognizePattern.js";
import { SynthesisDeadline } from "./SynthesisDeadline.js";
import type { SynthesisResult } from "./SynthesisResult.js";
import { inlineWork, type SynthesisWork } from "./SynthesisWork.js";

function problems(check: CandidateCheck): string[] {
  if (check.modelError !== null) return [`model: ${check.modelError}`];
  return check.rules.flatMap((r, i) => (r.error ? [`rule ${i + 1}: ${r.error}\n${r.text}`] : []));
}

/** Problems listed in a repair message, and characters of each: an answer of thousands of rules gets a message of kilobytes. */
const REPAIR_PROBLEMS = 20;
const REPAIR_PROBLEM_CHARS = 1000;

/** The follow-up message of the repair round: the problems the checker found (the first 20, each cut at 1,000 characters). */
export function repairMessage(check: CandidateCheck): string {
  const all = problems(check);
  const listed = all
    .slice(0, REPAIR_PROBLEMS)
    .map((p) => (p.length > REPAIR_PROBLEM_CHARS ? `${p.slice(0, REPAIR_PROBLEM_CHARS)} …` : p));
  if (all.length > REPAIR_PROBLEMS)
    listed.push(`… and ${all.length - REPAIR_PROBLEMS} more problems of the same kinds`);
  return [
    "The hub checked your answer and found these problems:",
    ...listed.map((p) => `- ${p}`),
    "",
    "Reply with the complete corrected answer in the same format (## Model, ## Rules, ## Parties, ## Protections).",
    "Remember: a transition that does not mention a property matches it, so state protections over the states a",
    "transition enters and the signatures it carries, e.g. always(!s -> [-signed_by(/users/alice.id)] !s).",
  ].join("\n");
}

/**
 * How far a checked answer can be trusted: it always parses and its rules hold, so the
 * doubt is whether it needed repair, lost rules, or leaves transitions open.
 */
function llmConfidence(repaired: boolean, lostRules: boolean, modelWarnings: boolean): number {
  let c = 0.9;
  if (repaired) c -= 0.15;
  if (lostRules) c -= 0.25;
  if (modelWarnings) c -= 0.1;
  return Math.round(c * 100) / 100;
}

/** Parties named in the answer, then any other `/users/<name>.id` the model mentions. */
function partiesOf(parsed: ParsedAnswer, model: string): string[] {
  // A set, not Array.includes: a model naming 30,000 users took 1.5 s of the event loop.
  const out = new Set(parsed.parties);
  for (const m of model.matchAll(/\/users\/([A-Za-z0-9_-]+)\.id/g)) out.add(m[1]!);
  return [...out];
}

/**
 * Synthesis with a language model: one request, the answer parsed and
 * checked; on any problem one repair round that sends the problems back. All the provider's
 * calls share the provider's `deadlineMs`: past it the call under way, or the repair round
 * not yet asked, is UPSTREAM_ERROR `upstream_timeout` with `deadline_ms`. The result never
 * holds a model that fails to parse: without a usable model after the repair round, the
 * pattern synthesizer answers when it recognises the description, else UPSTREAM_ERROR
 * (`invalid_answer`). Rules that still fail are dropped, each with a warning. Once `signal`
 * aborts (the caller went away) the call under way is aborted and nothing more is asked or
 * checked: INVALID_REQUEST `client_aborted`.
 */
export async function llmSynthesize(
  provider: LlmProvider,
  description: string,
  hint?: string,
  work: SynthesisWork = inlineWork(),
  signal?: AbortSignal,
): Promise<SynthesisResult> {
  const prompt = buildPrompt(description, hint, templateForHint(hint));
  // One deadline for the answer, its retries and the repair round: each call gets what is left of it.
  const deadline = provider.deadlineMs === undefined ? undefined : new SynthesisDeadline(provider.deadlineMs);
  const structured = {
    schema: { name: ANSWER_SCHEMA_NAME, schema: ANSWER_SCHEMA },
    deadline,
    ...(signal !== undefined ? { signal } : {}),
  };
  // Not even the first call for a caller already gone (a provider may not look at the signal).
  if (signal?.aborted) throw cancelledError();
  const first = await provider.complete(prompt, structured);
  // An answer nobody will read is not checked (worker time charged to the caller) nor repaired.
  if (signal?.aborted) throw cancelledError();
  let parsed = parseAnswer(first);
  let check = await work.check(parsed.model, parsed.rules);
  const warnings: string[] = [];
  const repaired = problems(check).length > 0;
  if (repaired) {
    const repair: LlmPrompt = {
      system: prompt.system,
      messages: [
        ...prompt.messages,
        { role: "assistant", content: first },
        { role: "user", content: repairMessage(check) },
      ],
    };
    const second = parseAnswer(await provider.complete(repair, structured));
    const secondCheck = await work.check(second.model, second.rules);
    if (secondCheck.compiled || !check.compiled) {
      parsed = second;
      check = secondCheck;
    } else {
      warnings.push(`the repair answer's model was unusable (${secondCheck.modelError}); kept the first answer`);
    }
  }
  /** The pattern synthesizer's answer when it recognises the description, else invalid_answer. */
  const unusable = (full: string | null): SynthesisResult => {
    // A parse error quotes the token it met, which a hostile answer can make a megabyte long.
    const error =
      full !== null && full.length > REPAIR_PROBLEM_CHARS ? `${full.slice(0, REPAIR_PROBLEM_CHARS)} …` : full;
    const fallback = patternSynthesize(description, hint);
    const why = `the language model gave no usable model after a repair round (${error})`;
    if (fallback !== null) return { ...fallback, warnings: [why, ...fallback.warnings] };
    throw new ContractError("UPSTREAM_ERROR", `Cannot synthesize: ${why}`, {
      reason: "invalid_answer",
      provider: provider.name,
      errors: [error],
    });
  };
  if (!check.compiled || parsed.model === null) return unusable(check.modelError);
  // A commit may post alongside its action: what the predicates read (a quorum's keys, a
  // deadline, a hash) gets -modifies on every step that does not move it on purpose.
  const fixed = await work.fixReadTerms(parsed.model, DEFAULT_LIMITS.modelTextBytes);
  if (fixed.tooLarge) {
    return unusable(
      `with -modifies of every term its predicates read on every step, the model would pass the hub's ${DEFAULT_LIMITS.modelTextBytes} bytes`,
    );
  }
  let model = parsed.model.trim();
  if (fixed.added.length > 0) {
    const fixedCheck = await work.check(fixed.model, parsed.rules);
    if (fixedCheck.compiled) {
      model = fixed.model;
      check = fixedCheck;
    }
  }
  const rules: string[] = [];
  check.rules.forEach((r, i) => {
    if (r.error === undefined) rules.push(r.text);
    else warnings.push(`dropped rule ${i + 1}: ${r.error}`);
  });
  if (rules.length === 0) warnings.push("no rule of the answer holds on its model: the contract has no rules");
  const dropped = warnings.length;
  if (model !== parsed.model.trim()) {
    for (const { path, transitions } of fixed.added) {
      warnings.push(
        `model: added -modifies(${path}) to ${transitions} transition(s): a predicate reads ${path}, and a commit could post there alongside its action (a step meant to move it should carry +modifies(${path}))`,
      );
    }
  }
  warnings.push(...check.modelWarnings);
  const hinted = familyForHint(hint);
  return {
    model,
    rules,
    parties: partiesOf(parsed, parsed.model),
    protections: parsed.protections,
    prompt: promptText(prompt),
    source: "llm",
    patterns: hinted === null ? [] : [hinted.id],
    confidence: llmConfidence(repaired, dropped > 0, warnings.length > dropped),
    warnings,
  };
}
