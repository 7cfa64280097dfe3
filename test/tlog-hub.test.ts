/**
 * The hub as a transparency log over REST and JSON-RPC: signed checkpoints that verify with
 * the published key, `leaf_index` on answers, log entries and pulls, inclusion and
 * consistency proofs that verify against checkpoints, private contracts' commits proven only
 * to their readers, and bad sizes refused with INVALID_REQUEST.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseVerifierKey, verifyCheckpoint } from "../src/tlog/checkpoint.js";
import { leafHash, verifyConsistency, verifyInclusion } from "../src/tlog/merkle.js";
import { type TestApp, testApp } from "./support/testApps.js";

const bytes = (hex: string[]) => hex.map((h) => Buffer.from(h, "hex"));

describe("checkpoints and proofs over REST", () => {
  let t: TestApp;
  let key: { origin: string; publicKey: Buffer };
  const hashes: string[] = [];

  const checkpoint = async () => {
    const res = await t.app.inject({ method: "GET", url: "/checkpoint" });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["content-type"], "text/plain; charset=utf-8");
    return { note: res.body, ...verifyCheckpoint(res.body, key.origin, key.publicKey) };
  };
  const submit = async (id: string, value: number) => {
    const res = await t.signed({
      method: "POST",
      url: `/contracts/${id}/commits`,
      body: { contract_id: id, method: "post", path: "/n.json", value },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { commit_hash: string; leaf_index: number };
  };

  before(async () => {
    t = await testApp("rest");
    const res = await t.app.inject({ method: "GET", url: "/checkpoint/key" });
    assert.equal(res.statusCode, 200);
    const info = res.json() as { origin: string; public_key: string; verifier_key: string };
    key = parseVerifierKey(info.verifier_key);
    assert.equal(info.public_key, `ed25519:${key.publicKey.toString("hex")}`);
    assert.match(info.origin, /^contract-hub\/[0-9a-f]{16}$/);
  });
  after(() => t.close());

  it("an empty log has a signed checkpoint of size 0", async () => {
    const cp = await checkpoint();
    assert.equal(cp.size, 0);
  });

  it("numbers every commit and proves it in the current checkpoint", async () => {
    const a = await t.contract({ contract_id: "pa", model: null, rules: [] });
    const b = await t.contract({ contract_id: "pb", model: null, rules: [] });
    hashes.push(a.head, b.head);
    for (let i = 0; i < 5; i++) {
      const answer = await submit(i % 2 === 0 ? "pa" : "pb", i);
      assert.equal(answer.leaf_index, hashes.length);
      hashes.push(answer.commit_hash);
    }
    const log = (await t.app.inject({ method: "GET", url: "/contracts/pa/log" })).json() as {
      commits: { hash: string; leaf_index: number }[];
    };
    assert.deepEqual(
      log.commits.map((c) => c.leaf_index),
      log.commits.map((c) => hashes.indexOf(c.hash)),
    );
    const pull = (await t.app.inject({ method: "GET", url: "/contracts/pb/pull" })).json() as {
      commits: { hash: string; leaf_index: number }[];
    };
    assert.deepEqual(
      pull.commits.map((c) => c.leaf_index),
      pull.commits.map((c) => hashes.indexOf(c.hash)),
    );
    const cp = await checkpoint();
    assert.equal(cp.size, hashes.length);
    for (const [i, hash] of hashes.entries()) {
      const res = await t.app.inject({ method: "GET", url: `/proofs/inclusion?hash=${hash}` });
      assert.equal(res.statusCode, 200);
      const p = res.json() as { leaf_index: number; tree_size: number; proof: string[] };
      assert.equal(p.leaf_index, i);
      assert.equal(p.tree_size, cp.size);
      assert.ok(verifyInclusion(leafHash(Buffer.from(hash, "hex")), i, cp.size, bytes(p.proof), cp.root));
    }
  });

  it("proves each older checkpoint consistent with the newest", async () => {
    const old = await checkpoint();
    await submit("pa", 100);
    await submit("pb", 101);
    const now = await checkpoint();
    assert.equal(now.size, old.size + 2);
    const res = await t.app.inject({ method: "GET", url: `/proofs/consistency?from=${old.size}&to=${now.size}` });
    assert.equal(res.statusCode, 200);
    const p = res.json() as { from: number; to: number; proof: string[] };
    assert.deepEqual([p.from, p.to], [old.size, now.size]);
    assert.ok(verifyConsistency(old.size, now.size, old.root, now.root, bytes(p.proof)));
    const same = (
      await t.app.inject({ method: "GET", url: `/proofs/consistency?from=${now.size}&to=${now.size}` })
    ).json() as { proof: string[] };
    assert.deepEqual(same.proof, []);
    // An inclusion proof in the older tree verifies against the older root.
    const inOld = (
      await t.app.inject({ method: "GET", url: `/proofs/inclusion?hash=${hashes[2]}&size=${old.size}` })
    ).json() as { proof: string[] };
    assert.ok(verifyInclusion(leafHash(Buffer.from(hashes[2]!, "hex")), 2, old.size, bytes(inOld.proof), old.root));
  });

  it("refuses sizes outside the tree and malformed hashes with INVALID_REQUEST", async () => {
    const { size } = await checkpoint();
    for (const url of [
      `/proofs/consistency?from=0&to=${size}`,
      `/proofs/consistency?from=${size}&to=${size + 1}`,
      "/proofs/consistency?from=3&to=2",
      `/proofs/inclusion?hash=${hashes[0]}&size=${size + 1}`,
      `/proofs/inclusion?hash=${hashes[3]}&size=3`,
      `/proofs/inclusion?hash=${hashes[0]!.toUpperCase()}`,
      "/proofs/inclusion",
    ]) {
      const res = await t.app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().code, "INVALID_REQUEST", url);
    }
    const unknown = await t.app.inject({ method: "GET", url: `/proofs/inclusion?hash=${"0".repeat(64)}` });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, "NOT_FOUND");
  });

  it("proves a private contract's commits only to those who may read it", async () => {
    const reader = await t.principal();
    const stranger = await t.principal();
    const priv = await t.contract({ contract_id: "secret", model: null, rules: [], readers: [reader.key] });
    const url = `/proofs/inclusion?hash=${priv.head}`;
    const anonymous = await t.app.inject({ method: "GET", url });
    assert.equal(anonymous.statusCode, 404);
    assert.equal(anonymous.json().code, "NOT_FOUND");
    assert.equal((await t.signed({ method: "GET", url, as: stranger })).statusCode, 404);
    const asReader = await t.signed({ method: "GET", url, as: reader });
    assert.equal(asReader.statusCode, 200);
    const cp = await checkpoint();
    const p = asReader.json() as { leaf_index: number; proof: string[] };
    assert.ok(verifyInclusion(leafHash(Buffer.from(priv.head, "hex")), p.leaf_index, cp.size, bytes(p.proof), cp.root));
    assert.equal((await t.signed({ method: "GET", url })).statusCode, 200, "the owner");
  });
});

describe("checkpoints and proofs over JSON-RPC", () => {
  let t: TestApp;
  before(async () => {
    t = await testApp("rpc");
  });
  after(() => t.close());

  const call = async (method: string, params: Record<string, unknown> = {}) => {
    const res = await t.app.inject({ method: "POST", url: "/", payload: { jsonrpc: "2.0", id: 1, method, params } });
    return res.json() as { result?: Record<string, unknown>; error?: { code: number; data: { code: string } } };
  };

  it("answers getCheckpoint, getCheckpointKey, getInclusionProof and getConsistencyProof", async () => {
    const c = await t.contract({ contract_id: "rpc1", model: null, rules: [] });
    const { result: info } = await call("getCheckpointKey");
    const key = parseVerifierKey(info!.verifier_key as string);
    const { result: cp } = await call("getCheckpoint");
    const parsed = verifyCheckpoint(cp!.checkpoint as string, key.origin, key.publicKey);
    assert.equal(cp!.size, 1);
    assert.equal(cp!.root, parsed.root.toString("hex"));
    const { result: inc } = await call("getInclusionProof", { hash: c.head });
    assert.deepEqual(inc, { leaf_index: 0, tree_size: 1, proof: [] });
    const { result: con } = await call("getConsistencyProof", { from: 1, to: 1 });
    assert.deepEqual(con, { from: 1, to: 1, proof: [] });
    const bad = await call("getConsistencyProof", { from: 2, to: 1 });
    assert.equal(bad.error?.data.code, "INVALID_REQUEST");
  });
});
