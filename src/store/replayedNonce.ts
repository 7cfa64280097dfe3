import { ContractError } from "../contract/ContractError.js";

/**
 * UNAUTHORIZED `replayed_nonce`: the request's nonce was already recorded. Raised by the
 * authenticator and by an append that carries the nonce (its transaction then stores nothing).
 */
export function replayedNonce(): ContractError {
  return new ContractError(
    "UNAUTHORIZED",
    "Cannot authenticate request: X-Hub-Nonce was already used (replayed request)",
    { reason: "replayed_nonce" },
  );
}
