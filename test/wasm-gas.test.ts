/**
 * The same custom predicate meters the same gas wherever a commit is decided: the hub
 * accepting it, the hub replaying its store after a restart, `verify` over the store, and
 * a command-line working copy validating a commit locally (its runner, its defaults).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { verifyStore } from "../src/cli/verify/verifyStore.js";
import { stateOf } from "../src/cli/workingCopy/localLog.js";
import { signedSubmitBody, signedWireCommit } from "../src/client/signedCommits.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { acceptCommit, type PredicateResult, type WasmRunner } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { Hub } from "../src/hub/Hub.js";
import { compileWat } from "../src/predicates/wasm/compileWat.js";
import { type ClosableWasmRunner, createWasmRunner, localWasmRunner } from "../src/predicates/wasmRunner.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { base64, customFailure, predicateModules, SCAN_WAT } from "./support/wasmModules.js";

const MODEL = `model Gas {
  initial ready
  ready -> ready [+USE +scan(1)]
  ready -> ready [+DENY +okarg("no")]
}`;

/** Records each evaluation's gas by commit hash and arguments. */
function recording(inner: WasmRunner): { run: WasmRunner; gas: Map<string, number> } {
  const gas = new Map<string, number>();
  const run: WasmRunner = async (bytes, input) => {
    const result: PredicateResult = await inner(bytes, input);
    const i = input as { args: unknown[]; commit: { hash: string } };
    gas.set(`${i.commit.hash} ${JSON.stringify(i.args)}`, result.gas_used);
    return result;
  };
  return { run, gas };
}

const NOW = 1_800_000_000;
let dir: string;
let store: SqliteStore;
let pool: ClosableWasmRunner;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "wasm-gas-"));
  store = await SqliteStore.open({ dataDir: dir });
  pool = createWasmRunner();
});
after(async () => {
  await pool.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("custom predicate gas", () => {
  it("is the same when accepted, replayed, verified and validated locally", async () => {
    const { okarg } = await predicateModules();
    const scan = await compileWat(SCAN_WAT);
    const owner = generateKeyPair();
    const caller = { identity: owner.publicKey.toString("hex"), accessKey: null };
    const live = recording(pool);
    const hub = new Hub({ store, wasm: live.run, now: () => NOW });
    const { contract_id: id } = await hub.createContract(caller, {
      model: MODEL,
      rules: [],
      state: { "/_code/custom/scan.wasm": base64(scan), "/_code/custom/okarg.wasm": base64(okarg) },
    });
    const values = ["a", "bb".repeat(40), JSON.stringify({ z: 1, a: [2, { y: 3, b: 4 }] })];
    for (const [n, value] of values.entries()) {
      const { head } = await hub.getState(caller, id);
      const body = { method: "post", path: `/notes/n${n}.text`, value, action_labels: ["USE"] };
      await hub.submitCommit(caller, id, signedSubmitBody(id, head, body, []));
    }
    assert.equal(live.gas.size, 3);
    const gasValues = [...live.gas.values()];
    assert.equal(new Set(gasValues).size, 3, "each commit's input differs, so does its gas");
    const accepted = new Map(live.gas);

    // A refusal: the hub reports the gas; a working copy deciding the same commit locally agrees.
    const { head } = await hub.getState(caller, id);
    const deny = signedWireCommit(id, head, [{ method: "action", value: "DENY" }]);
    let hubErr: ContractError | undefined;
    await hub.push(caller, id, { commits: [deny] }).catch((e: ContractError) => {
      hubErr = e;
    });
    assert.equal(hubErr?.code, "VALIDATION_FAILED");
    const hubGas = customFailure(hubErr!, '+okarg("no")').gas_used;
    assert.ok((hubGas ?? 0) > 0);
    const log = [];
    for await (const c of store.readCommits(id, 0, 4)) log.push(c);
    const local = await stateOf(id, log);
    let localErr: ContractError | undefined;
    await acceptCommit(local, deny, { timestamp: NOW, wasm: localWasmRunner() }).catch((e: ContractError) => {
      localErr = e;
    });
    assert.equal(customFailure(localErr!, '+okarg("no")').gas_used, hubGas);
    // The push also names the refused commit (docs/api.md); the engine's own details are the same.
    const { commit_hash, commit_index, ...decided } = hubErr!.details ?? {};
    assert.deepEqual({ commit_hash, commit_index }, { commit_hash: deny.hash, commit_index: 4 });
    assert.deepEqual(localErr?.details, decided);
    await hub.close();

    // A restarted hub replays the store; verify replays it untrusted.
    const replayed = recording(pool);
    const restarted = new Hub({ store, wasm: replayed.run, now: () => NOW });
    assert.equal((await restarted.getState(caller, id)).head, head);
    assert.deepEqual(replayed.gas, accepted);
    await restarted.close();

    const verified = recording(pool);
    const [report] = await verifyStore(store, [id], { wasm: verified.run });
    assert.equal(report?.ok, true, report?.damage?.message);
    assert.deepEqual(verified.gas, accepted);
  });
});
