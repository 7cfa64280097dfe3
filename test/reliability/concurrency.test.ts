/**
 * Concurrency battery (docs/reliability.md), against a real hub process over REST and
 * JSON-RPC mixed: rival pushes on one head (exactly one winner per round, losers 409 with
 * the winner's head, one chain, no duplicate entry), concurrent RECVs of one SEND (exactly
 * one accepted) and concurrent SENDs that together overdraw a balance (never negative;
 * exactly as many accepted as the balance covers). Then the asset invariants over the store.
 * Seeded: rivals per round, chain lengths, transports, amounts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { HubClient } from "../../src/client/HubClient.js";
import type { WireCommit } from "../../src/contract/Commit.js";
import { type ContractError, isContractError } from "../../src/contract/ContractError.js";
import { checkAssetInvariants } from "../../src/hub/assets/checkAssetInvariants.js";
import type { SubmitCommitBody } from "../../src/hub/HubApi.js";
import { SqliteStore } from "../../src/store/sqlite/SqliteStore.js";
import { type HubProcess, killAllHubs, startHub } from "../support/hubProcess.js";
import { Party } from "./support/party.js";
import { readBack } from "./support/readBack.js";
import { harnessSeed, LONG, Rng } from "./support/seeded.js";

const PUSH_ROUNDS = LONG ? 500 : 20;
const RECV_ROUNDS = LONG ? 200 : 10;
const OVERDRAW_ROUNDS = LONG ? 200 : 10;

const seed = harnessSeed("concurrency");
const rng = new Rng(seed);
const base = mkdtempSync(join(tmpdir(), "rel-concurrency-"));
const parties = Array.from({ length: 8 }, () => new Party(rng));
const owner = parties[0]!;
let hub: HubProcess;
let clients: HubClient[];
const figures: Record<string, number> = {};

before(async () => {
  hub = await startHub(join(base, "data"));
  for (const p of parties) await p.register(hub.url);
  clients = parties.map((p) => p.client(hub.url, hub.rpcUrl));
});
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
});

type Settled = PromiseSettledResult<unknown>;
const errorOf = (r: Settled) => (r.status === "rejected" ? (r.reason as ContractError) : null);

/** A push-format chain through one of four routes (the client chose the parent). */
function pushVia(client: HubClient, id: string, commits: WireCommit[], r: Rng): Promise<unknown> {
  const via = r.int(0, commits.length === 1 ? 3 : 1);
  if (via === 0) return client.push(id, commits);
  if (via === 1) return client.rpc("push", { contract_id: id, commits });
  if (via === 2) return client.submitCommit(id, { commit: commits[0]! });
  return client.rpc("submitCommit", { contract_id: id, commit: commits[0]! });
}

/** A field-form commit (the hub chooses the parent and validates on the head it locked). */
function submitVia(client: HubClient, id: string, body: SubmitCommitBody, r: Rng): Promise<unknown> {
  return r.next() < 0.5 ? client.submitCommit(id, body) : client.rpc("submitCommit", { contract_id: id, ...body });
}

/** A model-less contract of the owner that the first four parties may write. */
async function createShared(id: string): Promise<void> {
  await clients[0]!.createContract({ contract_id: id, model: null, rules: [] });
  for (const p of parties.slice(1, 4)) await clients[0]!.grant(id, p.identity, "writer");
}

async function balanceOf(id: string, assetId: string): Promise<number> {
  const assets = (await clients[0]!.getAssets(id)) as { balances: { asset_id: string; amount: number }[] };
  return assets.balances.find((b) => b.asset_id === assetId)?.amount ?? 0;
}

describe("concurrency against a real hub", { timeout: 600_000 }, () => {
  it(`rival pushes on one head, ${PUSH_ROUNDS} rounds: exactly one winner each, one chain`, async () => {
    await clients[0]!.push("race", [owner.genesis("race")]);
    for (const p of parties.slice(1)) await clients[0]!.grant("race", p.identity, "writer");
    const winners: number[] = [];
    let conflicts = 0;
    let expectedLength = 1;
    for (let round = 0; round < PUSH_ROUNDS; round++) {
      const head = (await clients[0]!.getState("race")).head;
      const k = rng.int(2, parties.length);
      const chains = Array.from({ length: k }, (_, i) =>
        parties[i]!.chain("race", head, rng.int(1, 3), `r${round}k${i}`),
      );
      // One rival also sends its chain twice: the copy must never become a second entry.
      const twice = rng.int(0, k - 1);
      const sends = chains.map((c, i) => pushVia(clients[i]!, "race", c, rng));
      sends.push(pushVia(clients[twice]!, "race", chains[twice]!, rng));
      const results = await Promise.allSettled(sends);
      const won = new Set(results.flatMap((r, i) => (r.status === "fulfilled" ? [i === k ? twice : i] : [])));
      winners.push(won.size);
      assert.equal(won.size, 1, `round ${round}: ${won.size} winners (seed ${seed})`);
      const winner = chains[[...won][0]!]!;
      const winnerHead = winner[winner.length - 1]!.hash;
      for (const r of results) {
        const err = errorOf(r);
        if (err === null) continue;
        assert.ok(isContractError(err, "CONFLICT"), `round ${round}: ${err.code} ${err.message}`);
        assert.equal(err.details?.head, winnerHead, `round ${round}: a loser names the winner's head`);
        conflicts++;
      }
      expectedLength += winner.length;
      // Re-sending the stored chain is an idempotent no-op.
      assert.equal((await clients[0]!.push("race", winner)).pushed, 0);
    }
    const { stored, problems } = await readBack(clients[0]!, ["race"]);
    assert.deepEqual(problems, []);
    const hashes = stored.get("race")!;
    assert.equal(hashes.length, expectedLength);
    assert.equal(new Set(hashes).size, hashes.length, "a commit stored twice");
    Object.assign(figures, {
      pushRounds: PUSH_ROUNDS,
      roundsWithOneWinner: winners.filter((w) => w === 1).length,
      forks: problems.length,
      conflicts409: conflicts,
      raceLogLength: hashes.length,
    });
  });

  it(`concurrent RECVs of one SEND, ${RECV_ROUNDS} rounds: exactly one accepted`, async () => {
    const api = clients[0]!;
    for (const id of ["bank", "dst", "other"]) await createShared(id);
    await api.submitCommit("bank", {
      method: "create",
      value: { asset_id: "tok", quantity: 1_000_000, divisibility: 1 },
    });
    let received = 0;
    let refused = 0;
    for (let round = 0; round < RECV_ROUNDS; round++) {
      const amount = rng.int(1, 100);
      const send = await api.submitCommit("bank", {
        method: "send",
        value: { asset_id: "tok", to_contract: "dst", amount },
      });
      const before = await balanceOf("dst", "tok");
      const m = rng.int(2, 8);
      const recv = { method: "recv", value: { send_commit_id: send.commit_hash } };
      const tries = Array.from({ length: m }, (_, i) => submitVia(clients[i % 4]!, "dst", recv, rng));
      // A RECV into the wrong contract races along; it must fail whatever the order.
      tries.push(submitVia(api, "other", recv, rng));
      const results = await Promise.allSettled(tries);
      const accepted = results.slice(0, m).filter((r) => r.status === "fulfilled").length;
      assert.equal(accepted, 1, `round ${round}: ${accepted} RECVs accepted (seed ${seed})`);
      for (const r of results.slice(0, m)) {
        const err = errorOf(r);
        if (err === null) continue;
        assert.equal(err.details?.rpc_code, -32032, `round ${round}: ${err.code} ${err.message}`);
        refused++;
      }
      assert.equal(errorOf(results[m]!)?.details?.rpc_code, -32031, `round ${round}: wrong recipient`);
      assert.equal(await balanceOf("dst", "tok"), before + amount);
      received += accepted;
    }
    Object.assign(figures, {
      recvRounds: RECV_ROUNDS,
      recvAcceptedPerSend: received / RECV_ROUNDS,
      recvRefused: refused,
    });
  });

  it(`concurrent SENDs over a balance, ${OVERDRAW_ROUNDS} rounds: never negative`, async () => {
    const api = clients[0]!;
    let overdrafts = 0;
    let accepted = 0;
    for (let round = 0; round < OVERDRAW_ROUNDS; round++) {
      const purse = `purse${round}`;
      await createShared(purse);
      const balance = rng.int(50, 200);
      const send = await api.submitCommit("bank", {
        method: "send",
        value: { asset_id: "tok", to_contract: purse, amount: balance },
      });
      await api.submitCommit(purse, { method: "recv", value: { send_commit_id: send.commit_hash } });
      const amount = rng.int(Math.ceil(balance / 4), balance);
      const m = rng.int(2, 8);
      const body = { method: "send", value: { asset_id: "tok", to_contract: "dst", amount } };
      const results = await Promise.allSettled(
        Array.from({ length: m }, (_, i) => submitVia(clients[i % 4]!, purse, body, rng)),
      );
      const ok = results.filter((r) => r.status === "fulfilled").length;
      for (const r of results) {
        const err = errorOf(r);
        if (err !== null) assert.equal(err.details?.rpc_code, -32024, `round ${round}: ${err.code} ${err.message}`);
      }
      const left = await balanceOf(purse, "tok");
      if (left < 0) overdrafts++;
      assert.equal(ok, Math.min(m, Math.floor(balance / amount)), `round ${round} (seed ${seed})`);
      assert.equal(left, balance - ok * amount);
      accepted += ok;
    }
    assert.equal(overdrafts, 0);
    Object.assign(figures, { overdrawRounds: OVERDRAW_ROUNDS, overdrawSendsAccepted: accepted, overdrafts });
  });

  it("the asset invariants hold over the stored tables and logs", async () => {
    await hub.stop();
    const store = await SqliteStore.open({ dataDir: join(base, "data") });
    try {
      const report = await checkAssetInvariants(store);
      assert.deepEqual(report.issues, []);
      Object.assign(figures, { assetInvariantIssues: report.issues.length, sendsChecked: report.sends });
    } finally {
      await store.close();
    }
    console.log(`[concurrency] figures ${JSON.stringify({ seed, ...figures })}`);
  });
});
