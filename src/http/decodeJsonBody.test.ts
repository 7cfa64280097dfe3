import assert from "node:assert/strict";
import { it } from "node:test";
import { heavyJsonTurn } from "./decodeJsonBody.js";

it("gives the turn to rebuild a heavy value to one parse at a time, in the order they asked", async () => {
  const order: string[] = [];
  const first = await heavyJsonTurn();
  const second = heavyJsonTurn().then((release) => {
    order.push("second");
    return release;
  });
  const third = heavyJsonTurn().then((release) => {
    order.push("third");
    release();
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, []);
  first();
  (await second)();
  await third;
  assert.deepEqual(order, ["second", "third"]);
});
