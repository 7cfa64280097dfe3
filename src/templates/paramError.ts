import { ContractError } from "../contract/ContractError.js";

/** The INVALID_REQUEST (400) for a template parameter; `details.param` names it, `details.reason` says what is wrong. */
export function paramError(param: string, reason: string, message: string): ContractError {
  return new ContractError("INVALID_REQUEST", `Template parameter "${param}": ${message}`, { reason, param });
}

/**
 * The refusal of key parameter `param` that a key decoder refused with `err`: a weak key keeps
 * its reason (`weak_key`, as wherever a key enters), any other refusal is `param_invalid`. The
 * decoder's message names the field ("Cannot accept buyer: …") and paramError names it
 * again, so that prefix is dropped: the parameter is named once.
 */
export function keyParamError(param: string, err: ContractError): ContractError {
  const reason = err.details?.reason === "weak_key" ? "weak_key" : "param_invalid";
  const prefix = /^Cannot [a-z]+ ([^:]+): /.exec(err.message);
  return paramError(param, reason, prefix?.[1] === param ? err.message.slice(prefix[0].length) : err.message);
}
