import type { Caller } from "../api/Caller.js";
import { ContractError } from "../contract/ContractError.js";
import type { LlmProvider } from "./LlmProvider.js";
import { type Env, hasLlmKey, providerFromEnv } from "./providerFromEnv.js";
import { SynthesisQuota } from "./SynthesisQuota.js";
import type { SynthesisResult } from "./SynthesisResult.js";
import { synthesize } from "./synthesize.js";

/** Synthesis as the hub serves it (HubOptions.synthesis). */
export interface SynthesisOperations {
  synthesize(caller: Caller, body: Record<string, unknown>): Promise<SynthesisResult>;
}

/**
 * Synthesis as a hub operation, configured by `env`. When a language-model key
 * is configured, synthesis spends the operator's money, so an unauthenticated caller gets 401
 * and each identity has a quota (`HUB_SYNTHESIS_QUOTA` calls per hour,
 * default 100, 0 = none); without a key the pattern synthesizer answers anyone.
 */
export function hubOperations(env: Env, quota: SynthesisQuota = SynthesisQuota.fromEnv(env)): SynthesisOperations {
  // One provider for the hub's life, so what it learns about the server (no structured output) is kept.
  let provider: LlmProvider | null | undefined;
  return {
    async synthesize(caller, body) {
      if (hasLlmKey(env)) {
        if (caller.identity === null) {
          throw new ContractError("UNAUTHORIZED", "Synthesis with a language model requires authentication", {
            reason: "authentication_required",
          });
        }
        quota.take(caller.identity);
      }
      provider ??= providerFromEnv(env);
      return synthesize(body, { provider });
    },
  };
}
