import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContractError } from "../contract/ContractError.js";
import { RateLimiter } from "./RateLimiter.js";

/** The `details.scope` of the refusal `fn` throws, or "none" when it passes. */
function scopeOf(fn: () => void): unknown {
  try {
    fn();
    return "none";
  } catch (err) {
    return (err as ContractError).details?.scope;
  }
}

test("an identity's keys share its bucket; a single key is refused as the key; addresses as the address", () => {
  const limiter = new RateLimiter(1, 2, () => 0);
  const scopes = [];
  for (let i = 0; i < 3; i++) scopes.push(scopeOf(() => limiter.take("key-a", "id-1")));
  scopes.push(scopeOf(() => limiter.take("key-b", "id-1")));
  scopes.push(scopeOf(() => limiter.take("key-c", "id-2")));
  assert.deepEqual(scopes, ["none", "none", "key", "identity", "none"]);
  assert.deepEqual(
    [scopeOf(() => limiter.takeAddress("10.0.0.1")), scopeOf(() => limiter.takeAddress("10.0.0.1"))],
    ["none", "none"],
  );
  assert.equal(
    scopeOf(() => limiter.takeAddress("10.0.0.1")),
    "address",
  );
});

test("a request the identity's bucket refuses spends none of its key's tokens", () => {
  let now = 0;
  const limiter = new RateLimiter(1, 2, () => now);
  limiter.take("key-a", "id-1");
  limiter.take("key-a", "id-1");
  now = 1000;
  limiter.take("key-a", "id-1");
  // Key b's bucket is full and the identity's empty: however often b asks, the identity refuses.
  const scopes = [];
  for (let i = 0; i < 4; i++) scopes.push(scopeOf(() => limiter.take("key-b", "id-1")));
  assert.deepEqual(scopes, ["identity", "identity", "identity", "identity"]);
});

test("rate 0 refuses nothing, on any bucket", () => {
  const limiter = new RateLimiter(0, 0, () => 0);
  for (let i = 0; i < 100; i++) {
    limiter.take("key-a", "id-1");
    limiter.takeAddress("10.0.0.1");
  }
});
