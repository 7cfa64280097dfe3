import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContractError } from "../../contract/ContractError.js";
import { WorkBudget } from "./WorkBudget.js";

test("a caller past its allowance is refused with work_budget and the seconds until it refilled; others are not", () => {
  let now = 0;
  const budget = new WorkBudget(6_000, () => now);
  budget.admit("a");
  budget.charge("a", 9_000);
  assert.throws(
    () => budget.admit("a"),
    (e: ContractError) =>
      e.code === "RATE_LIMITED" && e.details?.reason === "work_budget" && e.details?.retry_after === 30,
  );
  budget.admit("b");
  now = 30_000;
  budget.admit("a");
  assert.equal(budget.remaining("a"), 0);
  now = 1_000_000;
  assert.equal(budget.remaining("a"), 6_000);
});

test("a budget of 0 turns it off", () => {
  const budget = new WorkBudget(0);
  budget.charge("a", 1e9);
  budget.admit("a");
});
