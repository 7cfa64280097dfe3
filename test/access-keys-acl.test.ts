/**
 * Access keys and the contract ACL over a real hub (PROTOCOL.md §4, §7): several keys per
 * identity, listing, revocation by a sibling key or the identity key, revoked keys refused on
 * REST and JSON-RPC and never registered again; grants (owner only), readers, writers and
 * parties; `GET /contracts` and `listContracts` list exactly what the caller may read.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { registrationBody, revocationBody, signRequest } from "../src/auth/signRequest.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import { type Principal, postsAfter, type TestApp, testApp } from "./support/testApps.js";

let t: TestApp;
let rpcApp: FastifyInstance;
before(async () => {
  t = await testApp();
  rpcApp = await buildRpcApp(t.options);
  await rpcApp.ready();
});
after(async () => {
  await rpcApp.close();
  await t.close();
});

const body = (res: { body: string }) => JSON.parse(res.body) as Record<string, unknown>;
const reason = (res: { body: string }) => (body(res).details as Record<string, unknown> | undefined)?.reason;

/** A JSON-RPC call over HTTP, signed with `seed` when given. */
async function rpc(method: string, params: Record<string, unknown>, seed?: Uint8Array) {
  const raw = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const headers = {
    "content-type": "application/json",
    ...(seed ? signRequest(seed, { method: "POST", url: "/", body: raw }) : {}),
  };
  const res = await rpcApp.inject({ method: "POST", url: "/", payload: raw, headers });
  return { status: res.statusCode, ...(JSON.parse(res.body) as { result?: unknown; error?: { code: number } }) };
}

describe("access keys", () => {
  it("registers several keys per identity and lists them with creation and revocation times", async () => {
    const p = await t.principal();
    const second = generateKeyPair();
    const again = await t.app.inject({
      method: "POST",
      url: "/register",
      payload: registrationBody(p.identity.seed, second.seed),
    });
    assert.equal(again.statusCode, 201, again.body);
    const revoke = await t.signed({
      method: "POST",
      url: "/access/revoke",
      body: { access_key: second.publicKey.toString("hex") },
      as: p,
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    const list = body(await t.signed({ method: "GET", url: "/access", as: p }));
    assert.equal(list.identity, `ed25519:${p.key}`);
    const keys = list.access_keys as { access_key: string; created_at: number; revoked_at: number | null }[];
    assert.deepEqual(
      keys.map((k) => [k.access_key, typeof k.created_at, k.revoked_at === null]).sort(),
      [
        [p.access.publicKey.toString("hex"), "number", true],
        [second.publicKey.toString("hex"), "number", false],
      ].sort(),
    );
  });

  it("a revoked key is refused on REST and JSON-RPC at once and can never be registered again", async () => {
    const p = await t.principal();
    const sibling = generateKeyPair();
    await t.options.registry.register(registrationBody(p.identity.seed, sibling.seed));
    assert.equal((await t.signed({ method: "GET", url: "/access", as: p })).statusCode, 200);
    const key = p.access.publicKey.toString("hex");
    const revoked = await t.app.inject({
      method: "POST",
      url: "/access/revoke",
      payload: revocationBody(p.identity.seed, key),
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(body(revoked).access_key, key);
    const rest = await t.signed({ method: "GET", url: "/access", as: p });
    assert.deepEqual([rest.statusCode, reason(rest)], [401, "unknown_key"]);
    const viaRpc = await rpc("getHealth", {}, p.access.seed);
    assert.deepEqual([viaRpc.status, viaRpc.error?.code], [401, -32001]);
    const reRegister = await t.app.inject({
      method: "POST",
      url: "/register",
      payload: registrationBody(p.identity.seed, p.access.seed),
    });
    assert.deepEqual([reRegister.statusCode, reason(reRegister)], [409, "access_key_revoked"]);
    const other = await t.principal();
    const stolen = await t.app.inject({
      method: "POST",
      url: "/register",
      payload: registrationBody(other.identity.seed, p.access.seed),
    });
    assert.equal(stolen.statusCode, 409);
    // The sibling key still works.
    const siblingPrincipal: Principal = { ...p, access: sibling };
    assert.equal((await t.signed({ method: "GET", url: "/access", as: siblingPrincipal })).statusCode, 200);
  });

  it("revocation needs the key's own identity: another identity's key is 404, anonymous is 401", async () => {
    const p = await t.principal();
    const q = await t.principal();
    const foreign = await t.signed({
      method: "POST",
      url: "/access/revoke",
      body: { access_key: p.access.publicKey.toString("hex") },
      as: q,
    });
    assert.deepEqual([foreign.statusCode, reason(foreign)], [404, "unknown_access_key"]);
    const anonymous = await t.app.inject({
      method: "POST",
      url: "/access/revoke",
      payload: { access_key: p.access.publicKey.toString("hex") },
    });
    assert.equal(anonymous.statusCode, 401);
    const forged = await t.app.inject({
      method: "POST",
      url: "/access/revoke",
      payload: { ...revocationBody(q.identity.seed, p.access.publicKey.toString("hex")), identity_pubkey: p.key },
    });
    assert.equal(forged.statusCode, 401);
    assert.equal((await t.signed({ method: "GET", url: "/access", as: p })).statusCode, 200);
  });
});

describe("contract ACL", () => {
  it("grant is the owner's: writers, readers, parties and strangers get 403, or 404 when they cannot read", async () => {
    const [writer, reader, party, stranger] = [
      await t.principal(),
      await t.principal(),
      await t.principal(),
      await t.principal(),
    ];
    for (const readers of [undefined, [reader.key]]) {
      const { id } = await t.contract({ model: null, rules: [], state: { "/users/p.id": party.key }, readers });
      await t.hub.grant(t.owner.caller, id, { identity: writer.key, role: "writer" });
      await t.hub.grant(t.owner.caller, id, { identity: reader.key, role: "reader" });
      const grant = (as: Principal) =>
        t.signed({
          method: "POST",
          url: `/contracts/${id}/grant`,
          body: { identity: stranger.key, role: "writer" },
          as,
        });
      const statuses = [];
      for (const p of [writer, reader, party, stranger]) statuses.push((await grant(p)).statusCode);
      assert.deepEqual(statuses, [403, 403, 403, readers ? 404 : 403], `readers ${readers}`);
      const owner = await grant(t.owner);
      assert.equal(owner.statusCode, 200);
      assert.deepEqual(body(owner), { contract_id: id, identity: `ed25519:${stranger.key}`, role: "writer" });
    }
  });

  it("writers and parties write without a grant of reader; readers read but cannot write", async () => {
    const [writer, reader, party] = [await t.principal(), await t.principal(), await t.principal()];
    const { id, head } = await t.contract({
      model: null,
      rules: [],
      state: { "/users/p.id": party.key },
      readers: [reader.key],
    });
    await t.hub.grant(t.owner.caller, id, { identity: writer.key, role: "writer" });
    const [a, b, c] = postsAfter(id, head, 3);
    const push = (commit: unknown, as: Principal) =>
      t.signed({ method: "POST", url: `/contracts/${id}/push`, body: { commits: [commit] }, as });
    assert.equal((await push(a, writer)).statusCode, 200);
    assert.equal((await push(b, party)).statusCode, 200);
    const refused = await push(c, reader);
    assert.deepEqual([refused.statusCode, reason(refused)], [403, "not_a_writer"]);
    assert.equal((await t.signed({ method: "GET", url: `/contracts/${id}/log`, as: reader })).statusCode, 200);
  });

  it("GET /contracts and listContracts list a private contract to its owner, readers, writers and parties only", async () => {
    const [writer, reader, party, stranger, later] = [
      await t.principal(),
      await t.principal(),
      await t.principal(),
      await t.principal(),
      await t.principal(),
    ];
    const { id } = await t.contract({
      model: null,
      rules: [],
      state: { "/users/p.id": party.key },
      readers: [reader.key],
    });
    await t.hub.grant(t.owner.caller, id, { identity: writer.key, role: "writer" });
    const listed = async (p: Principal | null) => {
      const res = p
        ? await t.signed({ method: "GET", url: "/contracts?limit=1000", as: p })
        : await t.app.inject({ url: "/contracts?limit=1000" });
      const ids = (body(res).contracts as { contract_id: string }[]).map((c) => c.contract_id);
      const viaRpc = await rpc("listContracts", { limit: 1000 }, p?.access.seed);
      const rpcIds = (viaRpc.result as { contracts: { contract_id: string }[] }).contracts.map((c) => c.contract_id);
      assert.deepEqual(rpcIds, ids);
      return ids.includes(id);
    };
    const who = [t.owner, reader, writer, party, stranger, null];
    const seen = [];
    for (const p of who) seen.push(await listed(p));
    assert.deepEqual(seen, [true, true, true, true, false, false]);
    // The party's seat is handed to another identity: the listing follows the state.
    await t.hub.submitCommit(t.owner.caller, id, { method: "post", path: "/users/p.id", value: later.key });
    assert.deepEqual([await listed(party), await listed(later)], [false, true]);
    // Losing the reader grant hides it again.
    await t.hub.grant(t.owner.caller, id, { identity: reader.key, role: "none" });
    assert.equal(await listed(reader), false);
    const hidden = await t.signed({ method: "GET", url: `/contracts/${id}`, as: reader });
    assert.equal(hidden.statusCode, 404);
  });

  it("creating a contract whose id a private contract holds does not tell a stranger its head", async () => {
    const stranger = await t.principal();
    const { id, head } = await t.contract({ contract_id: "private-taken", model: null, rules: [], readers: [] });
    const res = await t.signed({
      method: "POST",
      url: "/contracts",
      body: { contract_id: id, model: null, rules: [] },
      as: stranger,
    });
    assert.equal(res.statusCode, 409);
    assert.equal((body(res).details as Record<string, unknown>).head, undefined);
    const own = await t.signed({
      method: "POST",
      url: "/contracts",
      body: { contract_id: id, model: null, rules: [] },
    });
    assert.equal((body(own).details as Record<string, unknown>).head, head);
  });
});
