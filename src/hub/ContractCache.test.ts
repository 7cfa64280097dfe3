import assert from "node:assert/strict";
import { it } from "node:test";
import { ContractState } from "../contract/ContractState.js";
import { ContractCache } from "./ContractCache.js";

const state = (id: string, length = 1) =>
  new ContractState({
    contractId: id,
    owner: "o",
    createdAt: 0,
    head: `${id}-${length}`,
    length,
    data: new Map(),
    model: null,
    current: [],
    rules: [],
  });

it("evicts the least recently used contract beyond its capacity", () => {
  const cache = new ContractCache(2);
  cache.set(state("a"));
  cache.set(state("b"));
  assert.ok(cache.get("a"));
  cache.set(state("c"));
  assert.equal(cache.get("b"), undefined);
  assert.ok(cache.get("a"));
  assert.ok(cache.get("c"));
  assert.equal(cache.size, 2);
});

it("never replaces a state by a shorter one, and forgets on delete", () => {
  const cache = new ContractCache(4);
  cache.set(state("a", 5));
  cache.set(state("a", 3));
  assert.equal(cache.get("a")?.length, 5);
  cache.set(state("a", 6));
  assert.equal(cache.get("a")?.length, 6);
  cache.delete("a");
  assert.equal(cache.get("a"), undefined);
  assert.throws(() => new ContractCache(0), RangeError);
});
