import type { Caller } from "../api/Caller.js";
import type { Authenticator } from "../auth/Authenticator.js";
import { isContractError } from "../contract/ContractError.js";

/**
 * Runs the handler of a route whose requests leave their nonce to their append (docs/storage.md,
 * "The request nonce"), then spends the nonce on its own unless an append stored it: every
 * signed request uses its nonce up exactly once, whether it appended, appended nothing (an
 * idempotent re-send, an empty push) or failed. A replay is answered UNAUTHORIZED
 * `replayed_nonce` whatever its handler did, which cannot have been an append.
 */
export async function spendingNonce<T>(
  authenticator: Authenticator,
  caller: Caller,
  run: () => Promise<T>,
): Promise<T> {
  const pending = caller.nonce;
  if (pending === undefined) return run();
  let out: T;
  try {
    out = await run();
  } catch (err) {
    // Spent even so: a captured failed request must not succeed later, when the contract has moved.
    try {
      await authenticator.spendNonce(pending);
    } catch (spendError) {
      if (isContractError(spendError, "UNAUTHORIZED")) throw spendError;
    }
    throw err;
  }
  await authenticator.spendNonce(pending);
  return out;
}
