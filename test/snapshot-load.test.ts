/**
 * State snapshots (docs/storage.md): a hub started on a store loads each long contract from
 * its newest snapshot plus the commits after it, and then answers exactly as a hub that
 * replayed the whole log: the same state, the same valid actions, the same verdicts on the
 * next commits (valid and refused), over contracts with a model, rules, a replaced model,
 * custom predicates deployed at /_code and assets. A snapshot whose digest does not match is
 * ignored (replay); one tampered consistently is what `contract-hub verify` is for: it
 * recomputes the state from the log and names the contract.
 */
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import { isContractError } from "../src/contract/ContractError.js";
import { snapshotDigest } from "../src/contract/stateSnapshot.js";
import type { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { localWasmRunner } from "../src/predicates/wasmRunner.js";
import Database from "../src/store/sqlite/Database.js";
import { contracts, create, recv, send } from "./asset-fixtures.js";
import { cli } from "./cli-support.js";
import { Actor, cleanup, tempDir } from "./hub-fixtures.js";
import { V1 as ESCROW_V1, RELEASE_REACHABLE, V2_GOOD } from "./support/escrowModels.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import { Party } from "./support/Party.js";
import { base64, predicateModules } from "./support/wasmModules.js";

/** The escrow of the model-replacement tests, with a transition that posts notes. */
const NOTE = "deposited -> deposited [+NOTE +signed_by(/users/seller.id)]\n  released -> released []";
const V1 = ESCROW_V1.replace("released -> released []", NOTE);
const V2 = V2_GOOD.replace("released -> released []", NOTE);
const CUSTOM = `model Custom {
  initial ready
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> ready [+USE +okarg("ok")]
  ready -> ready [+DENY +okarg("no")]
}`;
/** Snapshots every 2 commits: every contract here has one, with a tail after it or not. */
const EVERY = 2;

const owner = new Actor("owner");
const buyer = new Party("buyer");
const seller = new Party("seller");
let dir: string;

const asSigner = (p: Party) => ({ key: p.seed, as: `/users/${p.name}.id` });

async function headOf(hub: Hub, id: string): Promise<string> {
  return (await hub.getState(ANONYMOUS, id)).head;
}

/** The outcome of pushing one commit: "ok" or the refusal's code and reason. */
async function outcome(hub: Hub, id: string, commit: WireCommit): Promise<string> {
  try {
    await hub.push(owner.caller, id, { commits: [commit] });
    return "ok";
  } catch (err) {
    if (!isContractError(err)) throw err;
    return `${err.code}/${String(err.details?.reason)}`;
  }
}

/** Each hub's answers for a contract: its state view, then the verdict on each next commit in turn. */
async function answers(hub: Hub, id: string, next: ((parent: string) => WireCommit)[]): Promise<unknown[]> {
  const out: unknown[] = [await hub.getState(ANONYMOUS, id)];
  for (const build of next) {
    out.push(await outcome(hub, id, build(await headOf(hub, id))));
    out.push(await hub.getState(ANONYMOUS, id));
  }
  return out;
}

const signed =
  (id: string, data: Operation[], ...by: Party[]) =>
  (parent: string) =>
    buildWireCommit(id, parent, data, by.map(asSigner));

/** The commits each contract is offered after the restart: refused ones and accepted ones. */
const NEXT: Record<string, ((parent: string) => WireCommit)[]> = {
  escrow: [
    signed("escrow", [{ method: "action", value: "RELEASE" }], seller),
    signed("escrow", [{ method: "action", value: "REFUND" }], seller),
    signed(
      "escrow",
      [
        { method: "action", value: "NOTE" },
        { method: "post", path: "/n.text", value: "x" },
      ],
      seller,
    ),
    signed(
      "escrow",
      [{ method: "rule", path: "/rules/never.modality", value: "rule n { formula { always(init) } }" }],
      buyer,
    ),
    signed("escrow", [{ method: "action", value: "RELEASE" }], buyer),
  ],
  custom: [
    signed("custom", [{ method: "action", value: "DENY" }]),
    signed("custom", [{ method: "action", value: "USE" }]),
  ],
  plain: [signed("plain", [{ method: "post", path: "/x.json", value: { after: true } }])],
};

before(async () => {
  dir = tempDir();
  const modules = await predicateModules();
  const hub = await openSqliteHub({ dataDir: dir, snapshotEvery: EVERY, wasm: localWasmRunner() });
  const users = { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key };
  // Escrow: a model, a rule added by a commit, then the model replaced (snapshot before the tail).
  await hub.createContract(owner.caller, { contract_id: "escrow", model: V1, rules: [], state: users });
  const push = async (id: string, build: (parent: string) => WireCommit) =>
    hub.push(owner.caller, id, { commits: [build(await headOf(hub, id))] });
  await push("escrow", signed("escrow", [{ method: "action", value: "DEPOSIT" }], buyer));
  await push(
    "escrow",
    signed("escrow", [{ method: "rule", path: "/rules/release.modality", value: RELEASE_REACHABLE }], buyer),
  );
  await push(
    "escrow",
    signed("escrow", [{ method: "model", path: "/model/default.modality", value: V2 }], buyer, seller),
  );
  await push(
    "escrow",
    signed(
      "escrow",
      [
        { method: "action", value: "NOTE" },
        { method: "post", path: "/n.text", value: "a" },
      ],
      seller,
    ),
  );
  // Custom predicates deployed at /_code by a commit, then used.
  await hub.createContract(owner.caller, {
    contract_id: "custom",
    model: CUSTOM,
    rules: [],
    state: { "/users/owner.id": owner.key },
  });
  await push(
    "custom",
    signed(
      "custom",
      [
        { method: "action", value: "INSTALL" },
        { method: "post", path: "/_code/custom/okarg.wasm", value: base64(modules.okarg) },
      ],
      new Party("owner", owner.seed),
    ),
  );
  await push("custom", signed("custom", [{ method: "action", value: "USE" }]));
  // Assets: created, sent and received between two model-less contracts.
  await contracts(hub, owner, "plain", "bank");
  await create(hub, owner, "bank", "gold", 100);
  const sent = await send(hub, owner, "bank", "gold", "plain", 30);
  await recv(hub, owner, "plain", sent);
  await hub.close();
});
after(cleanup);

/** A copy of the store with its snapshots removed, opened without them: the full-replay reference. */
async function replayingHub(): Promise<Hub> {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  const db = new Database(join(copy, "hub.sqlite"));
  db.exec("DELETE FROM state_snapshots");
  db.close();
  return openSqliteHub({ dataDir: copy, snapshotEvery: 0, wasm: localWasmRunner() });
}

describe("state snapshots", () => {
  it("are stored for every contract that passed a multiple of the interval", async () => {
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    const rows = db.prepare("SELECT contract_id, length FROM state_snapshots ORDER BY contract_id").all();
    db.close();
    assert.deepEqual(rows, [
      { contract_id: "bank", length: 2 },
      { contract_id: "custom", length: 2 },
      { contract_id: "escrow", length: 4 },
      { contract_id: "plain", length: 2 },
    ]);
  });

  it("load after a restart to the answers of a full replay: state, valid actions, verdicts", async () => {
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });
    const fromSnapshot = await openSqliteHub({ dataDir: copy, snapshotEvery: EVERY, wasm: localWasmRunner() });
    const replayed = await replayingHub();
    try {
      const verdicts: unknown[] = [];
      for (const [id, next] of Object.entries(NEXT)) {
        const a = await answers(fromSnapshot, id, next);
        const b = await answers(replayed, id, next);
        assert.deepEqual(a, b, id);
        verdicts.push(...a.filter((x) => typeof x === "string"));
      }
      // The offered commits were both accepted and refused, so the comparison could tell.
      assert.ok(verdicts.includes("ok"));
      assert.ok(verdicts.some((v) => String(v).startsWith("VALIDATION_FAILED/")));
      assert.deepEqual(await fromSnapshot.getAssets(ANONYMOUS, "plain"), await replayed.getAssets(ANONYMOUS, "plain"));
    } finally {
      await fromSnapshot.close();
      await replayed.close();
    }
  });

  it("a tampered snapshot: served only while its digest matches, and verify names the contract", async () => {
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });
    const db = new Database(join(copy, "hub.sqlite"));
    const row = db.prepare("SELECT state FROM state_snapshots WHERE contract_id = 'escrow'").get() as { state: string };
    // The model state moved: visible in every state read, and in which commits are accepted.
    const truth = row.state.match(/"current":\[(\d+)\]/)![1]!;
    const forged = row.state.replace(/"current":\[\d+\]/, `"current":[${truth === "0" ? 1 : 0}]`);
    // Text changed, digest not: damage any reader sees. verify names it; the hub replays instead.
    db.prepare("UPDATE state_snapshots SET state = ? WHERE contract_id = 'escrow'").run(forged);
    db.close();
    const home = tempDir();
    const damaged = await cli(["verify", "--data-dir", copy, "--json"], { cwd: home, home });
    assert.equal(damaged.code, 1);
    const doc = damaged.json<{ contracts: { contract_id: string; ok: boolean; damage?: { message: string } }[] }>();
    assert.deepEqual(
      doc.contracts.filter((c) => !c.ok).map((c) => c.contract_id),
      ["escrow"],
    );
    assert.match(doc.contracts.find((c) => !c.ok)!.damage!.message, /digest/);
    const read = async () => {
      const hub = await openSqliteHub({ dataDir: copy, snapshotEvery: EVERY, wasm: localWasmRunner() });
      try {
        return (await hub.getState(ANONYMOUS, "escrow")).current_state;
      } finally {
        await hub.close();
      }
    };
    // The hub replays instead, and stores the snapshot of the state at its head (5 commits).
    assert.equal(await read(), "deposited");
    // Tampered with its digest recomputed: loaded (proving the hub uses snapshots), and verify still finds it.
    const db2 = new Database(join(copy, "hub.sqlite"));
    const fresh = db2.prepare("SELECT length, state FROM state_snapshots WHERE contract_id = 'escrow'").get() as {
      length: number;
      state: string;
    };
    assert.equal(fresh.length, 5);
    const forged5 = fresh.state.replace(/"current":\[\d+\]/, `"current":[${truth === "0" ? 1 : 0}]`);
    db2
      .prepare("UPDATE state_snapshots SET state = ?, digest = ? WHERE contract_id = 'escrow'")
      .run(forged5, snapshotDigest(forged5));
    db2.close();
    assert.notEqual(await read(), "deposited");
    const again = await cli(["verify", "--data-dir", copy, "--json"], { cwd: home, home });
    assert.equal(again.code, 1);
    const bad = again.json<typeof doc>().contracts.find((c) => !c.ok)!;
    assert.equal(bad.contract_id, "escrow");
    assert.match(bad.damage!.message, /state snapshot at 5 commits: differs/);
  });
});
