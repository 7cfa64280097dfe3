import { ContractError } from "../contract/ContractError.js";
import type { LlmProvider } from "./LlmProvider.js";
import { llmSynthesize } from "./llmSynthesize.js";
import { closestPatterns, patternSynthesize } from "./patternSynthesize.js";
import { type Env, providerFromEnv } from "./providerFromEnv.js";
import type { SynthesisResult } from "./SynthesisResult.js";
import type { SynthesisWork } from "./SynthesisWork.js";

export const MAX_DESCRIPTION = 20_000;
const MAX_HINT = 200;

export interface SynthesisOptions {
  /** Environment to configure the provider from (default `process.env`). */
  env?: Env;
  /** A provider to use instead of the environment's; `null` forces the pattern synthesizer. */
  provider?: LlmProvider | null;
  /** Where the checks of a language model's answer run and who pays (default: in place, free). */
  work?: SynthesisWork;
  /**
   * Aborted when the caller went away (its connection closed): the language model's call under
   * way is aborted and the request rejects with INVALID_REQUEST `client_aborted`.
   */
  signal?: AbortSignal;
}

function invalid(field: string, message: string): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot synthesize: ${message}`, { reason: "invalid_field", field });
}

/** The request's description and hint, validated (INVALID_REQUEST naming the field). */
export function readRequest(body: unknown): { description: string; hint?: string } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalid("body", "expected an object");
  const { description, pattern_hint: hint } = body as Record<string, unknown>;
  if (typeof description !== "string" || description.trim() === "") {
    throw invalid("description", "description must be a non-empty string");
  }
  if (description.length > MAX_DESCRIPTION) {
    throw invalid("description", `description exceeds ${MAX_DESCRIPTION} characters`);
  }
  if (hint !== undefined && hint !== null && (typeof hint !== "string" || hint.length > MAX_HINT)) {
    throw invalid("pattern_hint", `pattern_hint must be a string of at most ${MAX_HINT} characters`);
  }
  return typeof hint === "string" && hint.trim() !== "" ? { description, hint } : { description };
}

/**
 * `POST /contracts/synthesize`: a model, rules, parties and
 * protections from a description. With a configured language model (ANTHROPIC_API_KEY or
 * OPENAI_API_KEY) the answer is checked and repaired once (`source: "llm"`); without one the
 * pattern synthesizer answers (`source: "patterns"`), or UNAVAILABLE (503) names the
 * variables to set and `details.closest` the nearest patterns when none fits. Provider failures are
 * UPSTREAM_ERROR (502).
 */
export async function synthesize(body: unknown, options: SynthesisOptions = {}): Promise<SynthesisResult> {
  const { description, hint } = readRequest(body);
  const provider = options.provider !== undefined ? options.provider : providerFromEnv(options.env ?? process.env);
  if (provider !== null) return llmSynthesize(provider, description, hint, options.work, options.signal);
  const result = patternSynthesize(description, hint);
  if (result !== null) return result;
  const closest = closestPatterns(description);
  // A hint that names a pattern always fits; one that names none was read past: say so, so
  // the caller does not take the 503 as the hinted pattern's answer.
  const unknownHint = hint === undefined ? {} : { unknown_hint: hint };
  const hinted = hint === undefined ? "" : `pattern_hint ${JSON.stringify(hint.slice(0, 40))} names no pattern, and `;
  throw new ContractError(
    "UNAVAILABLE",
    `Cannot synthesize this description without a language model: ${hinted}no known pattern fits it. Set ` +
      "ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass a pattern_hint naming one of the patterns " +
      `(closest: ${closest.map((c) => c.pattern).join(", ")})`,
    { reason: "no_language_model", env: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"], closest, ...unknownHint },
  );
}
