/**
 * Commit events over /ws against the real hub (PROTOCOL.md §9): in log order, exactly once
 * per stored commit, never for a refused one; `since` replays what a reconnecting client
 * missed; the socket on both ports carries them.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CommitNotification, HubSocket } from "../src/client/HubSocket.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
});
after(async () => live.close());

/** Resolves once `events` holds `n` entries (the hub delivers asynchronously); fails rather than hang. */
async function until(events: unknown[], n: number): Promise<void> {
  for (let i = 0; events.length < n; i++) {
    if (i > 6000) assert.fail(`expected ${n} events, got ${events.length}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test("events arrive in order, exactly once, never for a refused commit; since replays the gap", async () => {
  const client = live.rest.withKey(alice.access.seed);
  const { contract_id: id } = await client.createContract({ model: null, rules: [] });
  for (const base of [live.servers.restUrl, live.servers.rpcUrl!]) {
    const socket = await HubSocket.connect(base);
    const seen: CommitNotification[] = [];
    await socket.subscribe(id, (e) => seen.push(e), { since: 0 });
    await until(seen, 1);
    assert.equal(seen[0]?.commit.method, "genesis");
    socket.close();
  }

  const socket = await HubSocket.connect(live.servers.restUrl, alice.access.seed);
  const events: CommitNotification[] = [];
  const sub = await socket.subscribe(id, (e) => events.push(e));
  for (let i = 0; i < 5; i++)
    await client.submitCommit(id, { method: "post", path: `/notes/n${i}.text`, value: `v${i}` });
  await assert.rejects(
    client.submitCommit(id, { method: "post", path: "/notes/bad.id", value: "not hex" }),
    (e: ContractError) => e.code === "VALIDATION_FAILED",
  );
  await client.submitCommit(id, { method: "post", path: "/notes/last.text", value: "z" });
  await until(events, 6);
  assert.deepEqual(
    events.map((e) => e.commit.index),
    [1, 2, 3, 4, 5, 6],
  );
  assert.ok(events.every((e) => e.subscription === sub && e.contract_id === id));
  assert.equal(events[5]?.state.commit_count, 7);

  // A client that saw up to index 3 reconnects and asks from 4: it gets 4, 5, 6 and then live ones.
  const again = await HubSocket.connect(live.servers.restUrl);
  const caught: CommitNotification[] = [];
  await again.subscribe(id, (e) => caught.push(e), { since: 4 });
  await until(caught, 3);
  await client.submitCommit(id, { method: "post", path: "/notes/later.text", value: "l" });
  await until(caught, 4);
  assert.deepEqual(
    caught.map((e) => e.commit.index),
    [4, 5, 6, 7],
  );
  await socket.unsubscribe(sub);
  await assert.rejects(
    again.subscribe("no-such-contract", () => {}),
    (e: ContractError) => e.code === "NOT_FOUND",
  );
  socket.close();
  again.close();
});
