import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { isContractError } from "../src/contract/ContractError.js";
import type { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { Actor, cleanup, genesisCommit, openHub, postChain, tempDir } from "./hub-fixtures.js";

after(cleanup);

/** Asserts the stored log of `id` is one chain from genesis, and returns its hashes. */
async function assertOneChain(hub: Hub, id: string): Promise<string[]> {
  const { commits, head } = await hub.pull(ANONYMOUS, id, {});
  let parent: string | null = null;
  for (const c of commits) {
    assert.equal(c.parent, parent);
    parent = c.hash;
  }
  assert.equal(parent, head);
  return commits.map((c) => c.hash);
}

/** 20 rival pushes on the same head, spread over `hubs`; returns the outcomes. */
async function race(hubs: Hub[], owner: Actor, id: string, head: string) {
  const rivals = Array.from({ length: 20 }, (_, i) => postChain(id, head, 2, `r${i}-`));
  const results = await Promise.allSettled(
    rivals.map((commits, i) => hubs[i % hubs.length]!.push(owner.caller, id, { commits })),
  );
  const winners = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
  for (const r of results) {
    if (r.status === "rejected") assert.ok(isContractError(r.reason, "CONFLICT"), String(r.reason));
  }
  return { rivals, winners };
}

describe("Hub concurrency", () => {
  it("lets exactly one of 20 concurrent pushes on the same head win within one hub", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const g = genesisCommit("race", owner);
    await hub.push(owner.caller, "race", { commits: [g] });
    const { rivals, winners } = await race([hub], owner, "race", g.hash);
    assert.equal(winners.length, 1);
    const chain = await assertOneChain(hub, "race");
    assert.deepEqual(chain, [g.hash, ...rivals[winners[0]!]!.map((c) => c.hash)]);
    await hub.close();
  });

  it("lets exactly one win across two hub instances on one SQLite file", async () => {
    const dir = tempDir();
    const a = await openHub(dir);
    const b = await openHub(dir);
    const owner = new Actor("owner");
    const g = genesisCommit("race2", owner);
    await a.push(owner.caller, "race2", { commits: [g] });
    // Both caches hold the genesis state, so each instance validates every rival as fresh.
    assert.equal((await b.getState(ANONYMOUS, "race2")).commit_count, 1);
    const { rivals, winners } = await race([a, b], owner, "race2", g.hash);
    assert.equal(winners.length, 1);
    const winner = rivals[winners[0]!]!;
    assert.deepEqual(await assertOneChain(a, "race2"), [g.hash, ...winner.map((c) => c.hash)]);
    assert.deepEqual(await assertOneChain(b, "race2"), [g.hash, ...winner.map((c) => c.hash)]);
    // The losing instance reloads from the store and accepts the next commit on the new head.
    const next = postChain("race2", winner[1]!.hash, 1, "next");
    const loser = winners[0]! % 2 === 0 ? b : a;
    assert.deepEqual(await loser.push(owner.caller, "race2", { commits: next }), { pushed: 1, head: next[0]!.hash });
    await a.close();
    await b.close();
  });

  it("serves concurrent writes to different contracts without interference", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const ids = Array.from({ length: 12 }, (_, i) => `m${i}`);
    await Promise.all(ids.map((id) => hub.push(owner.caller, id, { commits: [genesisCommit(id, owner)] })));
    const before = hub.store.stats();
    const heads = await Promise.all(ids.map(async (id) => (await hub.getState(ANONYMOUS, id)).head));
    await Promise.all(ids.map((id, i) => hub.push(owner.caller, id, { commits: postChain(id, heads[i]!, 3) })));
    const after = hub.store.stats();
    assert.equal(after.appends - before.appends, ids.length);
    for (const id of ids) assert.equal((await assertOneChain(hub, id)).length, 4);
    await hub.close();
  });
});
