import assert from "node:assert/strict";
import { ContractError } from "./ContractError.js";

/** Test helper: asserts `fn` throws a ContractError with `code` (and `reason`, if given); returns its details. */
export function assertContractError(fn: () => unknown, code: string, reason?: string): Record<string, unknown> {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown !== undefined, "expected a ContractError, nothing was thrown");
  assert.ok(thrown instanceof ContractError, `expected a ContractError, got ${String(thrown)}`);
  assert.equal(thrown.code, code, thrown.message);
  if (reason !== undefined) assert.equal(thrown.details?.reason, reason, thrown.message);
  return thrown.details ?? {};
}

/** Async form of `assertContractError`. */
export async function assertContractErrorAsync(
  fn: () => Promise<unknown>,
  code: string,
  reason?: string,
): Promise<Record<string, unknown>> {
  let thrown: unknown;
  try {
    await fn();
  } catch (err) {
    thrown = err;
  }
  return assertContractError(
    () => {
      if (thrown !== undefined) throw thrown;
    },
    code,
    reason,
  );
}
