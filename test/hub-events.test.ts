import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS, type CommitEvent } from "../src/hub/HubApi.js";
import {
  Actor,
  cleanup,
  ESCROW,
  escrowState,
  genesisCommit,
  openHub,
  postChain,
  signedFields,
  tempDir,
} from "./hub-fixtures.js";

after(cleanup);

/** Resolves once `events` holds `n` entries (listeners push into it); fails instead of hanging when they never come. */
function until(events: CommitEvent[], n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let expired = false;
    const guard = setTimeout(() => {
      expired = true;
      reject(new Error(`only ${events.length} of ${n} events arrived`));
    }, 20_000);
    const check = () => {
      if (events.length >= n) {
        clearTimeout(guard);
        resolve();
      } else if (!expired) setImmediate(check);
    };
    check();
  });
}

async function headOf(hub: Hub, id: string): Promise<string> {
  return (await hub.getState(ANONYMOUS, id)).head;
}

describe("Hub events", { timeout: 30_000 }, () => {
  it("delivers each stored commit once, in order, with the state after it; never rejected or repeated ones", async () => {
    const hub = await openHub();
    const buyer = new Actor("buyer");
    const seller = new Actor("seller");
    const { contract_id: id } = await hub.createContract(buyer.caller, {
      model: ESCROW,
      state: escrowState(buyer, seller),
    });
    const events: CommitEvent[] = [];
    await hub.subscribe(ANONYMOUS, id, undefined, (e) => events.push(e));
    await assertContractErrorAsync(
      () => hub.submitCommit(buyer.caller, id, { contract_id: id, action_labels: ["DEPOSIT"] }),
      "VALIDATION_FAILED",
    );
    const signed = signedFields(id, await headOf(hub, id), [{ method: "action", value: "DEPOSIT" }], buyer);
    const body = { contract_id: id, action_labels: ["DEPOSIT"], ...signed };
    await hub.submitCommit(buyer.caller, id, body);
    await hub.submitCommit(buyer.caller, id, body); // idempotent retry: no event
    await hub.push(buyer.caller, id, { commits: [] });
    await until(events, 1);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      events.map((e) => [e.contract_id, e.commit.index, e.commit.hash, e.state.current_state]),
      [[id, 1, signed.hash, "deposited"]],
    );
    await hub.close();
  });

  it("replays missed commits from `since` (index or hash), then continues live without gaps or duplicates", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const g = genesisCommit("ev", owner);
    const chain = postChain("ev", g.hash, 40);
    await hub.push(owner.caller, "ev", { commits: [g, ...chain.slice(0, 10)] });
    const fromZero: CommitEvent[] = [];
    const fromHash: CommitEvent[] = [];
    await hub.subscribe(ANONYMOUS, "ev", 0, (e) => fromZero.push(e));
    await hub.subscribe(ANONYMOUS, "ev", chain[4]!.hash, (e) => fromHash.push(e));
    // Writes race the replays: one commit per push, all concurrently queued.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => hub.push(owner.caller, "ev", { commits: chain.slice(0, 11 + i) })),
    );
    await until(fromZero, 41);
    await until(fromHash, 35);
    assert.deepEqual(
      fromZero.map((e) => e.commit.index),
      Array.from({ length: 41 }, (_, i) => i),
    );
    assert.deepEqual(
      fromHash.map((e) => e.commit.hash),
      chain.slice(5).map((c) => c.hash),
    );
    assert.equal(fromZero[40]!.state.commit_count, 41);
    assert.equal(fromZero[7]!.state.commit_count, 8);
    await assertContractErrorAsync(() => hub.subscribe(ANONYMOUS, "ev", "ab".repeat(32), () => {}), "NOT_FOUND");
    await hub.close();
  });

  it("stops delivering after unsubscribe", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const g = genesisCommit("un", owner);
    const chain = postChain("un", g.hash, 2);
    await hub.push(owner.caller, "un", { commits: [g] });
    const events: CommitEvent[] = [];
    const unsubscribe = await hub.subscribe(ANONYMOUS, "un", undefined, (e) => events.push(e));
    await hub.push(owner.caller, "un", { commits: [chain[0]!] });
    await until(events, 1);
    unsubscribe();
    await hub.push(owner.caller, "un", { commits: [chain[1]!] });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      events.map((e) => e.commit.index),
      [1],
    );
    await hub.close();
  });

  it("fills in commits another hub instance stored before delivering this instance's next one", async () => {
    const dir = tempDir();
    const a = await openHub(dir);
    const b = await openHub(dir);
    const owner = new Actor("owner");
    const g = genesisCommit("xi", owner);
    const chain = postChain("xi", g.hash, 4);
    await a.push(owner.caller, "xi", { commits: [g] });
    const events: CommitEvent[] = [];
    await a.subscribe(ANONYMOUS, "xi", undefined, (e) => events.push(e));
    await b.push(owner.caller, "xi", { commits: chain.slice(0, 3) });
    await a.push(owner.caller, "xi", { commits: chain });
    await until(events, 4);
    assert.deepEqual(
      events.map((e) => e.commit.hash),
      chain.map((c) => c.hash),
    );
    await a.close();
    await b.close();
  });
});
