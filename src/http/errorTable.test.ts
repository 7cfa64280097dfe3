import assert from "node:assert/strict";
import { test } from "node:test";
import { ContractError } from "../contract/ContractError.js";
import { ERROR_CODES } from "../contract/errorCodes.js";
import { ERROR_TABLE, errorBody, httpStatusOf, rpcCodeOf } from "./errorTable.js";

test("the table is docs/api.md, code for code", () => {
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
  assert.deepEqual(Object.fromEntries(Object.entries(ERROR_TABLE).map(([k, v]) => [k, [v.http, v.rpc]])), expected);
  assert.deepEqual(Object.keys(ERROR_TABLE), [...ERROR_CODES]);
});

test("a specific rpc_code wins only for VALIDATION_FAILED", () => {
  assert.equal(rpcCodeOf("VALIDATION_FAILED", { rpc_code: -32024 }), -32024);
  assert.equal(rpcCodeOf("VALIDATION_FAILED", { rpc_code: "x" }), -32005);
  assert.equal(rpcCodeOf("CONFLICT", { rpc_code: -32024 }), -32009);
});

test("an error's status, number and body", () => {
  const err = new ContractError("VALIDATION_FAILED", "SEND rejected: zero amount", { rpc_code: -32020 });
  assert.equal(httpStatusOf(err), 422);
  assert.equal(rpcCodeOf(err.code, err.details), -32020);
  assert.deepEqual(errorBody(err), {
    error: "SEND rejected: zero amount",
    code: "VALIDATION_FAILED",
    details: { rpc_code: -32020 },
  });
  assert.equal("details" in errorBody(new ContractError("INTERNAL", "x")), false);
});
