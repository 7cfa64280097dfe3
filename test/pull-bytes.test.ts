/**
 * The streamed pull (docs/storage.md: stored JSON columns joined, never parsed and serialised
 * again) answers byte for byte what the hub answered when it serialised each parsed commit:
 * the same bytes for every query (since, limit, has_more), the same access rules on a
 * private contract, and JSON-RPC's pull agreeing with it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { type StoredCommit, toPulledCommit } from "../src/contract/StoredCommit.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { genesisFor, postsAfter, type TestApp, testApp } from "./support/testApps.js";

/** The pull body as plain serialisation writes it: JSON.stringify of each parsed row. */
async function previousPull(t: TestApp, id: string, q: { since?: string; limit?: number }): Promise<string> {
  const record = (await t.hub.store.getContract(id))!;
  const all: StoredCommit[] = [];
  for await (const c of t.hub.store.readCommits(id, 0, record.length)) all.push(c);
  const from = q.since === undefined ? 0 : all.findIndex((c) => c.hash === q.since) + 1;
  const end = q.limit === undefined ? record.length : Math.min(record.length, from + q.limit);
  const commits = all.slice(from, end).map((c) => JSON.stringify(toPulledCommit(c)));
  const more = q.limit === undefined ? "" : `,"has_more":${end < record.length}`;
  return `{"contract_id":${JSON.stringify(id)},"head":${JSON.stringify(record.head)},"commits":[${commits.join(",")}]${more}}`;
}

describe("streamed pull bytes", () => {
  let t: TestApp;
  const id = "bytes";
  const hashes: string[] = [];

  before(async () => {
    t = await testApp();
    const genesis = genesisFor(id, t.owner, { "/t/e.json": { z: [0.1, 1.5e-7, -2], a: '\u2028"\\😀' } });
    await t.hub.push(t.owner.caller, id, { commits: [genesis] });
    // A signed commit with an action label and an attestation, then a long run of posts (several store pages).
    const signed = buildWireCommit(
      id,
      genesis.hash,
      [
        { method: "action", value: "GO" },
        { method: "post", path: "/x.json", value: { b: 1, a: [true, null] } },
      ],
      [{ key: t.owner.identity.seed }],
    );
    await t.hub.push(t.owner.caller, id, { commits: [signed] });
    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, signed.hash, 1500) });
    for await (const c of t.hub.store.readCommits(id)) hashes.push(c.hash);
  });
  after(() => t.close());

  const queries = (): { since?: string; limit?: number }[] => [
    {},
    { limit: 1 },
    { limit: 1502 },
    { limit: 5000 },
    { since: hashes[0]! },
    { since: hashes[1]!, limit: 700 },
    { since: hashes[1500]!, limit: 3 },
    { since: hashes[1501]! },
  ];

  it("answers every pull query with the bytes of the previous serialisation", async () => {
    for (const q of queries()) {
      const search = new URLSearchParams(
        Object.entries(q).map(([k, v]) => [k, String(v)]) as [string, string][],
      ).toString();
      const res = await t.app.inject({ method: "GET", url: `/contracts/${id}/pull${search ? `?${search}` : ""}` });
      assert.equal(res.statusCode, 200, search);
      assert.equal(res.body, await previousPull(t, id, q), search);
      assert.deepEqual(await t.hub.pull(ANONYMOUS, id, q), JSON.parse(res.body), search);
    }
  });

  it("keeps a private contract's pull from strangers and gives its readers the same bytes", async () => {
    const reader = await t.principal();
    const stranger = await t.principal();
    const { id: secret, head } = await t.contract({ model: null, rules: [], readers: [`ed25519:${reader.key}`] });
    await t.hub.push(t.owner.caller, secret, { commits: postsAfter(secret, head, 40) });
    const url = `/contracts/${secret}/pull?limit=30`;
    const anonymous = await t.app.inject({ method: "GET", url });
    assert.equal(anonymous.statusCode, 404);
    assert.equal(anonymous.json().code, "NOT_FOUND");
    const foreign = await t.signed({ method: "GET", url, as: stranger });
    assert.equal(foreign.statusCode, 404);
    const allowed = await t.signed({ method: "GET", url, as: reader });
    assert.equal(allowed.statusCode, 200);
    assert.equal(allowed.body, await previousPull(t, secret, { limit: 30 }));
    assert.equal(allowed.json().has_more, true);
  });

  it("answers an unknown `since` NOT_FOUND with its reason, as before", async () => {
    const res = await t.app.inject({ method: "GET", url: `/contracts/${id}/pull?since=${"00".repeat(32)}` });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().details.reason, "since_not_found");
  });
});
