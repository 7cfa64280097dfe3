import { ContractError } from "../contract/ContractError.js";

/** The INVALID_REQUEST (400) for a template parameter; `details.param` names it, `details.reason` says what is wrong. */
export function paramError(param: string, reason: string, message: string): ContractError {
  return new ContractError("INVALID_REQUEST", `Template parameter "${param}": ${message}`, { reason, param });
}
