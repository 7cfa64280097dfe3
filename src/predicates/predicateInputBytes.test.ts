import assert from "node:assert/strict";
import { test } from "node:test";
import { predicateInputBytes, sortKeysDeep } from "./predicateInputBytes.js";

/** The bytes a predicate has always been given: the whole input with sorted keys, in the fixed field order. */
function reference(input: {
  args: unknown[];
  contract_id: string;
  commit: Record<string, unknown>;
  state: Record<string, unknown>;
}): Uint8Array {
  const s = sortKeysDeep(input) as typeof input;
  const c = s.commit;
  const commit = {
    hash: c.hash,
    parent: c.parent,
    data: c.data,
    labels: c.labels,
    signers: c.signers,
    timestamp: c.timestamp,
  };
  return new TextEncoder().encode(JSON.stringify({ args: s.args, contract_id: s.contract_id, commit, state: s.state }));
}

const commit = {
  hash: "ab".repeat(32),
  parent: null,
  data: [{ method: "post", path: "/b.json", value: { z: 1, "10": [2, { y: 3, b: undefined }], "2": "é\u2028" } }],
  labels: ["USE", "POST"],
  signers: ["ed25519:00"],
  timestamp: 1_800_000_000,
};

/** Turns of the event loop (setImmediate callbacks) that ran while `work` was awaited. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

test("the bytes are exactly those of the whole input with sorted keys (the same gas as before)", async () => {
  const state = {
    "/z.text": "last",
    "/a.json": { "1": true, b: [null, { d: 1, c: undefined }], a: "x" },
    "/m.id": "00".repeat(32),
    "/u.text": undefined,
  };
  for (const args of [[], ["ok", 1, { b: 2, a: 1 }], [null]]) {
    const input = { args, contract_id: "c_1", commit, state };
    assert.deepEqual(await predicateInputBytes(input), reference(input));
  }
});

test("a big state is serialised once per commit, in slices that let the event loop turn", async () => {
  // 8 MiB of state: serialising it in one go held the event loop for about 100 ms, and again
  // for every custom predicate of the commit (up to 32).
  const state: Record<string, unknown> = {};
  for (let i = 0; i < 8; i++) state[`/notes/n${i}.text`] = "x".repeat(1024 * 1024);
  for (let i = 0; i < 10_000; i++) state[`/k/n${i}.json`] = { b: [i, { c: "y" }], a: i };
  const first = { args: [1], contract_id: "c_1", commit, state };
  let bytes: Uint8Array | undefined;
  const turns = await turnsDuring(async () => {
    bytes = await predicateInputBytes(first);
  });
  assert.ok(turns >= 8, `the event loop turned ${turns} times`);
  assert.deepEqual(bytes, reference(first));

  // Another predicate of the same commit (the same state and commit objects): no serialising again.
  const second = { args: ["other"], contract_id: "c_1", commit, state };
  let again: Uint8Array | undefined;
  assert.equal(
    await turnsDuring(async () => {
      again = await predicateInputBytes(second);
    }),
    0,
  );
  assert.deepEqual(again, reference(second));
});
