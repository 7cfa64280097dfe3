import assert from "node:assert/strict";
import { test } from "node:test";
import { ContractError, isContractError } from "./ContractError.js";
import { ERROR_CODES, isErrorCode, rpcCodeOf } from "./errorCodes.js";

test("the table is PROTOCOL.md §4, code for code", () => {
  const expected: Record<string, [number, number]> = {
    INVALID_REQUEST: [400, -32602],
    UNAUTHORIZED: [401, -32001],
    FORBIDDEN: [403, -32003],
    NOT_FOUND: [404, -32004],
    CONFLICT: [409, -32009],
    PAYLOAD_TOO_LARGE: [413, -32013],
    VALIDATION_FAILED: [422, -32005],
    RATE_LIMITED: [429, -32029],
    UPSTREAM_ERROR: [502, -32052],
    UNAVAILABLE: [503, -32053],
    CORRUPTED: [500, -32099],
    INTERNAL: [500, -32603],
  };
  assert.deepEqual(Object.fromEntries(Object.entries(ERROR_CODES).map(([k, v]) => [k, [v.http, v.rpc]])), expected);
});

test("isErrorCode accepts only the table's own keys", () => {
  assert.equal(isErrorCode("CONFLICT"), true);
  assert.equal(isErrorCode("conflict"), false);
  assert.equal(isErrorCode("toString"), false);
  assert.equal(isErrorCode(404), false);
});

test("a specific rpc_code wins only for VALIDATION_FAILED", () => {
  assert.equal(rpcCodeOf("VALIDATION_FAILED", { rpc_code: -32024 }), -32024);
  assert.equal(rpcCodeOf("VALIDATION_FAILED", { rpc_code: "x" }), -32005);
  assert.equal(rpcCodeOf("CONFLICT", { rpc_code: -32024 }), -32009);
});

test("ContractError carries code, details, status and body", () => {
  const err = new ContractError("VALIDATION_FAILED", "SEND rejected: zero amount", { rpc_code: -32020 });
  assert.ok(err instanceof Error);
  assert.equal(err.name, "ContractError");
  assert.equal(err.httpStatus, 422);
  assert.equal(err.rpcCode, -32020);
  assert.deepEqual(err.toBody(), {
    error: "SEND rejected: zero amount",
    code: "VALIDATION_FAILED",
    details: { rpc_code: -32020 },
  });
  assert.equal("details" in new ContractError("INTERNAL", "x").toBody(), false);
  assert.equal(isContractError(err, "VALIDATION_FAILED"), true);
  assert.equal(isContractError(err, "CONFLICT"), false);
  assert.equal(isContractError(new Error("x")), false);
});
