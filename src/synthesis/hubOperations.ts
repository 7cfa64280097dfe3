import type { Caller } from "../api/Caller.js";
import { ContractError } from "../contract/ContractError.js";
import type { TemplateInstantiator } from "../hub/Hub.js";
import { getTemplate } from "../templates/getTemplate.js";
import { instantiateTemplate } from "../templates/instantiateTemplate.js";
import { listTemplates } from "../templates/listTemplates.js";
import type { Template, TemplateSummary } from "../templates/Template.js";
import { type Env, hasLlmKey } from "./providerFromEnv.js";
import { SynthesisQuota } from "./SynthesisQuota.js";
import type { SynthesisResult } from "./SynthesisResult.js";
import { synthesize } from "./synthesize.js";

/** The hub's template expansion for `POST /contracts {template, params}` (HubOptions.templates). */
export const hubTemplates: TemplateInstantiator = (id, params) => instantiateTemplate(id, params);

/** The synthesis and template operations the adapters call through `requireOperation` (HubExtras). */
export interface SynthesisOperations {
  synthesize(caller: Caller, body: Record<string, unknown>): Promise<SynthesisResult>;
  listTemplates(): TemplateSummary[];
  getTemplate(id: string): Template;
}

/**
 * Synthesis and templates as hub operations, configured by `env`. When a language-model key
 * is configured, synthesis spends the operator's money, so an unauthenticated caller gets 401
 * (PROTOCOL.md §7) and each identity has a quota (`HUB_SYNTHESIS_QUOTA` calls per hour,
 * default 100, 0 = none); without a key the pattern synthesizer answers anyone.
 */
export function hubOperations(env: Env, quota: SynthesisQuota = SynthesisQuota.fromEnv(env)): SynthesisOperations {
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
      return synthesize(body, { env });
    },
    listTemplates: () => listTemplates(),
    getTemplate: (id) => getTemplate(id),
  };
}
