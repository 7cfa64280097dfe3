import type { Caller } from "../api/Caller.js";
import { ContractError } from "../contract/ContractError.js";
import { cancelledError } from "./cancelledError.js";
import type { LlmProvider } from "./LlmProvider.js";
import { type Env, hasLlmKey, providerFromEnv } from "./providerFromEnv.js";
import { SynthesisQuota } from "./SynthesisQuota.js";
import type { SynthesisResult } from "./SynthesisResult.js";
import type { SynthesisWork } from "./SynthesisWork.js";
import { readRequest, synthesize } from "./synthesize.js";

/** Synthesis as the hub serves it (HubOptions.synthesis). */
export interface SynthesisOperations {
  /**
   * `work`: where the checks of a language model's answer run and who pays (default: in place,
   * free); `signal`: aborted when the caller went away, which cancels the provider's calls.
   */
  synthesize(
    caller: Caller,
    body: Record<string, unknown>,
    work?: SynthesisWork,
    signal?: AbortSignal,
  ): Promise<SynthesisResult>;
}

/**
 * Synthesis as a hub operation, configured by `env`. When a language-model key
 * is configured, synthesis spends the operator's money, so an unauthenticated caller gets 401
 * and each identity has a quota (`HUB_SYNTHESIS_QUOTA` calls per hour,
 * default 100, 0 = none); without a key the pattern synthesizer answers anyone. Throws
 * ContractError (`details.reason: "bad_config"`, `details.variable`) for a malformed setting.
 * A request whose caller goes away (`signal` aborted) is cancelled; once admitted it still
 * counts against the quota: the provider may already have been asked, and paid, and a quota
 * given back on disconnect would let a caller ask without limit by hanging up each time.
 */
export function hubOperations(env: Env, quota: SynthesisQuota = SynthesisQuota.fromEnv(env)): SynthesisOperations {
  // One provider for the hub's life, so what it learns about the server (no structured output) is kept.
  // Made now, so a malformed HUB_LLM_* value stops the hub at start (ContractError, reason
  // bad_config) rather than failing every synthesis with INTERNAL.
  const provider: LlmProvider | null = providerFromEnv(env);
  return {
    async synthesize(caller, body, work, signal) {
      if (hasLlmKey(env)) {
        if (caller.identity === null) {
          throw new ContractError("UNAUTHORIZED", "Synthesis with a language model requires authentication", {
            reason: "unauthenticated",
          });
        }
        // Before the quota and the provider: a body refused, or a caller out of work allowance,
        // spends neither.
        readRequest(body);
        work?.admit();
        // A caller gone before its turn spends nothing.
        if (signal?.aborted) throw cancelledError();
        quota.take(caller.identity);
      }
      return synthesize(body, {
        provider,
        ...(work !== undefined ? { work } : {}),
        ...(signal !== undefined ? { signal } : {}),
      });
    },
  };
}
