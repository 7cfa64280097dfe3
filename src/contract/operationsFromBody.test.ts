import assert from "node:assert/strict";
import { it } from "node:test";
import { assertContractError } from "./assertContractError.js";
import { operationsFromBody } from "./operationsFromBody.js";

it("builds the method operation first, then one action per label", () => {
  assert.deepEqual(operationsFromBody({ method: "post", path: "/a.text", value: "x", action_labels: ["A", "B"] }), [
    { method: "post", path: "/a.text", value: "x" },
    { method: "action", value: "A" },
    { method: "action", value: "B" },
  ]);
  assert.deepEqual(operationsFromBody({ action_labels: ["DEPOSIT"] }), [{ method: "action", value: "DEPOSIT" }]);
  assert.deepEqual(operationsFromBody({ method: "action", action: "DEPOSIT" }), [
    { method: "action", value: "DEPOSIT" },
  ]);
  assert.deepEqual(operationsFromBody({ method: "ACTION", value: "GO", action_labels: ["X"] }), [
    { method: "action", value: "GO" },
    { method: "action", value: "X" },
  ]);
});

it("rejects bodies without operations, bad labels and misplaced fields", () => {
  assertContractError(() => operationsFromBody({}), "INVALID_REQUEST", "empty_commit");
  assertContractError(() => operationsFromBody({ method: "action" }), "INVALID_REQUEST", "empty_commit");
  assertContractError(() => operationsFromBody({ path: "/a.text", value: 1 }), "INVALID_REQUEST", "method_missing");
  assertContractError(() => operationsFromBody({ method: "post", path: "/a.text", action: "X" }), "INVALID_REQUEST");
  assertContractError(() => operationsFromBody({ action_labels: ["lower"] }), "INVALID_REQUEST");
  assertContractError(() => operationsFromBody({ action_labels: ["SEND"] }), "INVALID_REQUEST");
  assertContractError(() => operationsFromBody({ action_labels: "A" as never }), "INVALID_REQUEST");
  assertContractError(() => operationsFromBody({ method: 3 as never }), "INVALID_REQUEST");
});
