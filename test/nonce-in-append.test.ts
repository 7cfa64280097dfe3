/**
 * The request nonce rides in the append's transaction (docs/storage.md, "The request nonce"):
 * a push or a single commit costs one write transaction, a replayed request is 401
 * `replayed_nonce` whether the original appended, appended nothing or failed, and two appends
 * carrying the same nonce never both commit, on SQLite and across PostgreSQL instances.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Caller, PendingNonce } from "../src/api/Caller.js";
import { signRequest } from "../src/auth/signRequest.js";
import { isContractError } from "../src/contract/ContractError.js";
import type { Hub } from "../src/hub/Hub.js";
import { testDatabase } from "./support/pg.js";
import { openInstance, Writer } from "./support/pgHubs.js";
import { postsAfter, type TestApp, testApp } from "./support/testApps.js";

/** A caller whose request nonce is left to its append, as the REST push and commit routes leave it. */
function deferred(caller: Caller, nonce: string): Caller {
  const pending: PendingNonce = { accessKey: caller.accessKey!, nonce, expiresAt: 4_000_000_000, spent: false };
  return { ...caller, nonce: pending };
}

/** Two appends on two contracts carrying one nonce, at once: exactly one commits. */
async function raceOneNonce(hubs: [Hub, Hub], callers: [Caller, Caller], ids: [string, string], bodies: unknown[]) {
  const outcomes = await Promise.allSettled(
    [0, 1].map((i) => hubs[i]!.push(deferred(callers[i]!, "ab".repeat(16)), ids[i]!, bodies[i] as never)),
  );
  const won = outcomes.filter((o) => o.status === "fulfilled");
  assert.equal(won.length, 1, JSON.stringify(outcomes.map((o) => o.status)));
  const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
  assert.ok(isContractError(lost.reason, "UNAUTHORIZED"), String(lost.reason));
  assert.equal(lost.reason.details?.reason, "replayed_nonce");
  return outcomes.map((o) => o.status === "fulfilled");
}

describe("nonce in the append (SQLite, REST)", () => {
  let t: TestApp;
  let id: string;
  let head: string;
  /** The contract's head commit as last sent. */
  let last: unknown;
  before(async () => {
    t = await testApp();
    ({ id, head } = await t.contract());
  });
  after(async () => t.close());

  const length = async () => (await t.hub.store.getContract(id))!.length;

  /** Sends one signed request twice, byte for byte (the second is a replay); the write transactions of the first. */
  const sendTwice = async (url: string, body: unknown) => {
    const raw = JSON.stringify(body);
    const headers = {
      ...signRequest(t.owner.access.seed, { method: "POST", url, body: raw }),
      "content-type": "application/json",
    };
    const before = t.hub.store.stats().transactions;
    const first = await t.app.inject({ method: "POST", url, headers, payload: raw });
    const transactions = t.hub.store.stats().transactions - before;
    const replay = await t.app.inject({ method: "POST", url, headers, payload: raw });
    assert.equal(replay.statusCode, 401, replay.body);
    assert.equal(replay.json().details.reason, "replayed_nonce");
    return { first, transactions };
  };

  it("a push and a single commit each cost one write transaction, and their replays are 401 with nothing appended", async () => {
    const posts = postsAfter(id, head, 3, "push");
    const before = t.hub.store.stats().appends;
    const pushed = await sendTwice(`/contracts/${id}/push`, { commits: posts });
    assert.equal(pushed.first.statusCode, 200, pushed.first.body);
    assert.equal(pushed.transactions, 1);
    assert.equal(t.hub.store.stats().appends - before, 1);
    assert.equal(await length(), 4);

    const next = postsAfter(id, posts.at(-1)!.hash, 1, "one")[0]!;
    const one = await sendTwice(`/contracts/${id}/commits`, { commit: next });
    assert.equal(one.first.statusCode, 201, one.first.body);
    assert.equal(one.transactions, 1);
    assert.equal(await length(), 5);
    last = next;
  });

  it("a request that appends nothing, or fails, still uses its nonce up: its replay is 401", async () => {
    const url = `/contracts/${id}/commits`;
    // An idempotent re-send of the head appends nothing: its nonce is written on its own.
    const resend = { commit: last };
    const same = await sendTwice(url, resend);
    assert.equal(same.first.statusCode, 200, same.first.body);
    // A push of stored commits appends nothing either.
    const empty = await sendTwice(`/contracts/${id}/push`, { commits: [resend.commit] });
    assert.equal(empty.first.statusCode, 200, empty.first.body);
    assert.equal(empty.first.json().pushed, 0);
    // A stale parent fails with 409; its replay must not be tried again later.
    const stale = postsAfter(id, "cd".repeat(32), 1, "stale")[0]!;
    const failed = await sendTwice(url, { commit: stale });
    assert.equal(failed.first.statusCode, 409, failed.first.body);
    assert.equal(await length(), 5);
  });

  it("two appends carrying one nonce never both commit", async () => {
    const a = await t.contract();
    const b = await t.contract();
    const bodies = [{ commits: postsAfter(a.id, a.head, 2, "a") }, { commits: postsAfter(b.id, b.head, 2, "b") }];
    const won = await raceOneNonce([t.hub, t.hub], [t.owner.caller, t.owner.caller], [a.id, b.id], bodies);
    const lengths = [(await t.hub.store.getContract(a.id))!.length, (await t.hub.store.getContract(b.id))!.length];
    assert.deepEqual(
      lengths,
      won.map((w) => (w ? 3 : 1)),
    );
  });
});

describe("nonce in the append (PostgreSQL, two instances)", () => {
  it("two instances appending with one nonce at once: exactly one commits, the other stores nothing", async () => {
    const db = await testDatabase();
    const schema = db.freshSchema();
    const one = await openInstance(db.url, schema);
    const two = await openInstance(db.url, schema);
    try {
      const w = new Writer();
      const ids = ["nonce-race-a", "nonce-race-b"] as [string, string];
      const heads: string[] = [];
      for (const id of ids) {
        const g = w.genesis(id);
        await one.hub.push(w.caller, id, { commits: [g] });
        heads.push(g.hash);
      }
      for (let round = 0; round < 5; round++) {
        const nonce = `${"ef".repeat(16)}${round}`;
        const bodies = ids.map((id, i) => ({ commits: w.chain(id, heads[i]!, 2, `r${round}`) }));
        const outcomes = await Promise.allSettled(
          [one, two].map((inst, i) =>
            inst.hub.push(
              { ...w.caller, nonce: { accessKey: w.key, nonce, expiresAt: 4_000_000_000, spent: false } },
              ids[i]!,
              bodies[i]!,
            ),
          ),
        );
        const won = outcomes.map((o) => o.status === "fulfilled");
        assert.equal(won.filter(Boolean).length, 1, `round ${round}: ${JSON.stringify(outcomes)}`);
        const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
        assert.equal(lost.reason.details?.reason, "replayed_nonce");
        for (const [i, id] of ids.entries()) {
          const record = (await one.store.getContract(id))!;
          if (won[i]) heads[i] = bodies[i]!.commits.at(-1)!.hash;
          assert.equal(record.head, heads[i]);
        }
      }
      // A nonce used by an append is used for a request that appends nothing too.
      assert.equal(await two.store.useNonce(w.key, `${"ef".repeat(16)}0`, 4_000_000_000), false);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
