import type { CreateContractBody } from "../api/schemas.js";
import { ContractError } from "../contract/ContractError.js";
import type { GenesisInput } from "../contract/engine.js";
import { IDENTITY_PREFIX, normalizeIdentity, typeName } from "../contract/hex.js";
import type { TemplateInstantiator } from "./HubContext.js";

/** The genesis of `POST /contracts` (docs/api.md): owner check (403), template expansion, field types (400). */
export function genesisInput(
  identity: string,
  body: CreateContractBody,
  templates: TemplateInstantiator | undefined,
): GenesisInput {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ContractError("INVALID_REQUEST", `Invalid body: expected an object, got ${typeName(body)}`, {
      reason: "body_not_object",
    });
  }
  const owner = IDENTITY_PREFIX + identity;
  if (body.owner !== undefined && normalizeIdentity(body.owner, "owner") !== owner) {
    throw new ContractError("FORBIDDEN", "The owner must be the authenticated identity", {
      reason: "owner_mismatch",
    });
  }
  let { model, rules, state } = body;
  if (body.template === undefined && body.params !== undefined) {
    // Parameters fill a template; without one (its name left out or misspelled) they would be
    // dropped and the contract created without a model, accepting any commit.
    throw new ContractError("INVALID_REQUEST", "Invalid params: they need a template to fill", {
      reason: "params_without_template",
      field: "params",
    });
  }
  if (body.template !== undefined) {
    // A template contract is the template's terms: a model or rules sent beside it were dropped
    // or mixed in, and a state path of its own overrode a parameter past its checks.
    for (const field of ["model", "rules"] as const) {
      if (body[field] !== undefined) throw templateConflict(body.template, field, `cannot be combined with a template`);
    }
    const t = templates?.(body.template, body.params ?? {});
    if (t === undefined) {
      throw new ContractError("NOT_FOUND", `Template ${JSON.stringify(body.template)} not found`, {
        reason: "template_not_found",
      });
    }
    if (state !== undefined && state !== null && typeof state === "object") {
      const taken = Object.keys(state).find((path) => Object.hasOwn(t.state ?? {}, path));
      if (taken !== undefined)
        throw templateConflict(body.template, "state", `path ${taken} is set by the template's parameters`, taken);
    }
    model = t.model;
    rules = t.rules;
    state = { ...t.state, ...state };
  }
  if (model !== undefined && model !== null && typeof model !== "string")
    throw new ContractError("INVALID_REQUEST", "Invalid model: expected a string", { reason: "model_type" });
  if (rules !== undefined && (!Array.isArray(rules) || rules.some((r) => typeof r !== "string")))
    throw new ContractError("INVALID_REQUEST", "Invalid rules: expected strings", { reason: "rules_type" });
  if (state !== undefined && (state === null || typeof state !== "object" || Array.isArray(state)))
    throw new ContractError("INVALID_REQUEST", "Invalid state: expected an object", { reason: "state_type" });
  return { model: model ?? null, rules: rules ?? [], owner, ...(state ? { state } : {}) };
}

/** 400 `template_conflict`: a field of the body that would change a template's terms. */
function templateConflict(template: unknown, field: string, what: string, path?: string): ContractError {
  return new ContractError("INVALID_REQUEST", `Invalid ${field}: ${what} (template ${JSON.stringify(template)})`, {
    reason: "template_conflict",
    field,
    ...(path !== undefined ? { path } : {}),
  });
}

/** `readers` as lower-case hex identities, or null when absent (a public contract). */
export function readersOf(readers: unknown): string[] | null {
  if (readers === undefined) return null;
  if (!Array.isArray(readers))
    throw new ContractError("INVALID_REQUEST", "Invalid readers: expected an array of identities", {
      reason: "readers_type",
    });
  return readers.map((r, i) => normalizeIdentity(r, `readers[${i}]`).slice(IDENTITY_PREFIX.length));
}
