import assert from "node:assert/strict";
import { test } from "node:test";
import { retryAfterSeconds, TokenBuckets } from "./TokenBuckets.js";

test("a key spends its capacity, then waits for an even refill; keys are independent", () => {
  let now = 0;
  const buckets = new TokenBuckets(2, 1, 1000, () => now);
  assert.deepEqual([buckets.take("a"), buckets.take("a")], [0, 0]);
  assert.equal(buckets.take("a"), 1000);
  assert.equal(buckets.take("b"), 0);
  now = 500;
  assert.equal(buckets.take("a"), 500);
  now = 1000;
  assert.equal(buckets.take("a"), 0);
});

test("retry-after is whole seconds, at least one", () => {
  assert.deepEqual([retryAfterSeconds(1), retryAfterSeconds(1000), retryAfterSeconds(1001)], [1, 1, 2]);
});
