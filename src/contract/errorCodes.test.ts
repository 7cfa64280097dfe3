import assert from "node:assert/strict";
import { test } from "node:test";
import { ContractError, isContractError } from "./ContractError.js";
import { isErrorCode } from "./errorCodes.js";

test("isErrorCode accepts only the list's own codes", () => {
  assert.equal(isErrorCode("CONFLICT"), true);
  assert.equal(isErrorCode("conflict"), false);
  assert.equal(isErrorCode("toString"), false);
  assert.equal(isErrorCode(404), false);
});

test("ContractError carries code and details", () => {
  const err = new ContractError("VALIDATION_FAILED", "SEND rejected: zero amount", { rpc_code: -32020 });
  assert.ok(err instanceof Error);
  assert.equal(err.name, "ContractError");
  assert.equal(err.code, "VALIDATION_FAILED");
  assert.deepEqual(err.details, { rpc_code: -32020 });
  assert.equal(isContractError(err, "VALIDATION_FAILED"), true);
  assert.equal(isContractError(err, "CONFLICT"), false);
  assert.equal(isContractError(new Error("x")), false);
});
