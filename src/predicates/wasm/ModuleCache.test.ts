import assert from "node:assert/strict";
import { test } from "node:test";
import { ModuleCache } from "./ModuleCache.js";

/** A cache whose compilations are counted: `made` lists the keys compiled, in order. */
function counted(maxEntries: number, maxBytes: number) {
  const made: string[] = [];
  const cache = new ModuleCache<string>(maxEntries, maxBytes);
  const get = (key: string, bytes: number) =>
    cache.get(key, bytes, async () => {
      made.push(key);
      return `compiled ${key}`;
    });
  return { cache, made, get };
}

test("a hit answers the cached compilation and keeps the entry as the most recently used", async () => {
  const { cache, made, get } = counted(2, 1_000);
  assert.equal(await get("a", 10), "compiled a");
  await get("b", 10);
  await get("a", 10);
  await get("c", 10); // evicts b, the least recently used
  await get("a", 10);
  await get("b", 10);
  assert.deepEqual(made, ["a", "b", "c", "b"]);
  assert.deepEqual(cache.size, { entries: 2, bytes: 20 });
});

test("the module bytes held are bounded, not only the entries: large modules evict the oldest", async () => {
  const { cache, made, get } = counted(128, 100);
  await get("small", 10);
  await get("big1", 60);
  await get("big2", 60); // 130 > 100: small, then big1 go
  assert.deepEqual(cache.size, { entries: 1, bytes: 60 });
  await get("big2", 60);
  await get("big1", 60);
  assert.deepEqual(made, ["small", "big1", "big2", "big1"]);
  // One module over the bound alone is kept: it is about to be used.
  await get("huge", 500);
  assert.deepEqual(cache.size, { entries: 1, bytes: 500 });
  await get("huge", 500);
  assert.equal(made.filter((k) => k === "huge").length, 1);
});

test("a rejected compilation is forgotten with its bytes, so the next call compiles again", async () => {
  const cache = new ModuleCache<string>(4, 100);
  let calls = 0;
  const make = async () => {
    calls++;
    if (calls === 1) throw new Error("thread lost");
    return "compiled";
  };
  await assert.rejects(cache.get("m", 40, make), /thread lost/);
  assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
  assert.equal(await cache.get("m", 40, make), "compiled");
  assert.equal(await cache.get("m", 40, make), "compiled");
  assert.equal(calls, 2);
  assert.deepEqual(cache.size, { entries: 1, bytes: 40 });
});
