import assert from "node:assert/strict";
import { it } from "node:test";
import { KeyedMutex } from "./KeyedMutex.js";

const tick = () => new Promise((r) => setImmediate(r));

it("runs holders of one key one at a time, in call order, and other keys alongside", async () => {
  const mutex = new KeyedMutex();
  const log: string[] = [];
  let inside = 0;
  const job = (key: string, name: string) =>
    mutex.run(key, async () => {
      inside++;
      assert.equal(inside <= 2, true);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      inside--;
      return name;
    });
  const results = await Promise.all([job("a", "a1"), job("a", "a2"), job("b", "b1"), job("a", "a3")]);
  assert.deepEqual(results, ["a1", "a2", "b1", "a3"]);
  const a = log.filter((l) => l.endsWith("a1") || l.endsWith("a2") || l.endsWith("a3"));
  assert.deepEqual(a, ["start a1", "end a1", "start a2", "end a2", "start a3", "end a3"]);
  assert.ok(log.indexOf("start b1") < log.indexOf("end a1"), "another key does not wait");
  assert.equal(mutex.size, 0);
});

it("releases the key when a holder throws", async () => {
  const mutex = new KeyedMutex();
  await assert.rejects(
    mutex.run("k", async () => {
      throw new Error("boom");
    }),
  );
  assert.equal(await mutex.run("k", async () => 7), 7);
  assert.equal(mutex.size, 0);
});
