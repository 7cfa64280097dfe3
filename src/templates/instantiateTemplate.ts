import { isContractError } from "../contract/ContractError.js";
import { normalizeIdentity } from "../contract/hex.js";
import { keyParamError } from "./paramError.js";
import { ruleText } from "./ruleText.js";
import type { PartyNames, TemplateInstance } from "./Template.js";
import { templateDefinition } from "./templateDefinitions.js";
import { validateParams } from "./validateParams.js";

/**
 * Instantiates template `id` with `params` (`POST /contracts {template, params}`): validates
 * them (INVALID_REQUEST naming the parameter), builds the model and rules, and writes each
 * value to its state path (a party's key at `/users/<role>.id`, a key list as
 * `<dir>/signer_<i>.id`, others at typed paths such as `/terms/deadline.datetime`).
 * NOT_FOUND for an unknown template. `owner` (hex or `ed25519:<hex>`) is passed through normalized.
 */
export function instantiateTemplate(id: string, params: unknown, opts: { owner?: string } = {}): TemplateInstance {
  const def = templateDefinition(id);
  const values = validateParams(def, params);
  const roles: PartyNames = Object.fromEntries(def.parties.map((r) => [r, r]));
  const body = def.build(values, roles);
  const state: Record<string, unknown> = {};
  for (const p of def.params) {
    const v = values[p.name];
    if (v === undefined) continue;
    if (!Array.isArray(v)) state[p.path] = v;
    else for (const [i, key] of v.entries()) state[`${p.path}/signer_${i + 1}.id`] = key;
  }
  const instance: TemplateInstance = { model: body.model, rules: body.rules.map(ruleText), state };
  if (opts.owner !== undefined) {
    try {
      instance.owner = normalizeIdentity(opts.owner, "owner");
    } catch (err) {
      if (isContractError(err)) throw keyParamError("owner", err);
      throw err;
    }
  }
  return instance;
}
