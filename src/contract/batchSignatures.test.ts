/** The hub's fast paths through the engine decide exactly as the default path does. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildWireCommit } from "./buildWireCommit.js";
import type { WireCommit } from "./Commit.js";
import {
  acceptCommit,
  acceptGenesis,
  applyDelta,
  type ContractState,
  genesisData,
  startBatchSignatures,
  verifyBatchSignatures,
} from "./engine.js";
import { generateKeyPair } from "./keys.js";
import { validateCommitShape } from "./validateCommitShape.js";

const ID = "c_batch_signatures_test";
const MODEL = `model Loop {
  initial idle
  idle -> busy [+DEPOSIT +signed_by(/users/buyer.id)]
  busy -> idle [+RELEASE +signed_by(/users/buyer.id)]
}`;
const buyer = generateKeyPair();
const other = generateKeyPair();
const BUYER = buyer.publicKey.toString("hex");

async function genesis(): Promise<ContractState> {
  const g = buildWireCommit(
    ID,
    null,
    genesisData({ model: MODEL, rules: [], owner: `ed25519:${BUYER}`, state: { "/users/buyer.id": BUYER } }),
  );
  return (await acceptGenesis(ID, g, { timestamp: 1 })).state;
}

function steps(state: ContractState, n: number, key = buyer.seed): WireCommit[] {
  const out: WireCommit[] = [];
  let parent = state.head;
  for (let i = 0; i < n; i++) {
    const action = i % 2 === 0 ? "DEPOSIT" : "RELEASE";
    const c = buildWireCommit(ID, parent, [{ method: "action", value: action }], [{ key, as: "/users/buyer.id" }]);
    out.push(c);
    parent = c.hash;
  }
  return out;
}

test("startBatchSignatures settles per commit with what verifyBatchSignatures returns, for raw or prevalidated commits", async () => {
  const state = await genesis();
  const good = steps(state, 3);
  const forged = steps(state, 3, other.seed);
  const batch = [good[0]!, forged[1]!, { not: "a commit" }];
  const expected = [[BUYER], undefined, undefined];
  assert.deepEqual(await verifyBatchSignatures(state, batch), expected);
  assert.deepEqual(await Promise.all(startBatchSignatures(state, batch)), expected);
  const shaped = good.map((c) => validateCommitShape(c, { contractId: ID }));
  assert.deepEqual(await Promise.all(startBatchSignatures(state, shaped, { prevalidated: true })), [
    [BUYER],
    [BUYER],
    [BUYER],
  ]);
});

test("verifyOnThreadpool and prevalidated accept and reject exactly as the default path", async () => {
  const state = await genesis();
  for (const options of [{}, { verifyOnThreadpool: true }, { verifyOnThreadpool: true, prevalidated: true }]) {
    const s = state.clone();
    for (const c of steps(s, 4)) {
      const input = "prevalidated" in options ? validateCommitShape(c, { contractId: ID }) : c;
      const accepted = await acceptCommit(s, input, { timestamp: 2, ...options });
      assert.deepEqual(accepted.stored.signers, [BUYER]);
      applyDelta(s, accepted.delta);
    }
    const forged = steps(s, 1, other.seed)[0]!;
    await assert.rejects(
      acceptCommit(s, forged, { timestamp: 3, ...options }),
      (err: Error & { details?: unknown }) => {
        assert.deepEqual((err as { details?: { reason?: string } }).details?.reason, "bad_signature");
        return true;
      },
    );
  }
});
