/**
 * Custom WASM predicates through real `contract-hub start` processes on PostgreSQL: on by
 * default with the default gas limit (a loop runs out of gas), `--no-wasm` refusing to
 * decide with 503 wasm_disabled a commit that needs a custom predicate (and explaining one
 * refused without any, naming those it did not run), a restart replaying every custom predicate to the same
 * state, and `contract-hub verify` of the store agreeing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { HubClient } from "../src/client/HubClient.js";
import { signedSubmitBody } from "../src/client/signedCommits.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { generateKeyPair, type RawKeyPair } from "../src/contract/keys.js";
import type { SubmitCommitResult } from "../src/hub/HubApi.js";
import { type HubProcess, killAllHubs, spawnHub } from "./support/hubProcess.js";
import { type TestDatabase, testDatabase } from "./support/pg.js";
import { base64, customFailure, type PredicateModules, predicateModules } from "./support/wasmModules.js";

const MODEL = `model Custom {
  initial ready
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> ready [+USE +okarg("ok")]
  ready -> ready [+LOOP +loop(1)]
}`;

const BIN = fileURLToPath(new URL("../bin/contract-hub.js", import.meta.url));

const db: TestDatabase = await testDatabase();
let modules: PredicateModules;
let hub: HubProcess | undefined;
let identity: RawKeyPair;
let access: RawKeyPair;

const start = async (...extra: string[]) => {
  hub = await spawnHub(["--port", "0", "--no-rpc", "--rate-limit", "0", "--database-url", db.url, ...extra]);
  return new HubClient({ url: hub.url, accessKey: access.seed, retries: 0 });
};
const stop = async () => {
  await hub?.stop();
  hub = undefined;
};

async function submit(c: HubClient, id: string, body: Record<string, unknown>, signed = false) {
  const { head } = await c.getState(id);
  const signers = signed ? [{ key: identity.seed, as: "/users/owner.id" }] : [];
  return c.submitCommit(id, signedSubmitBody(id, head, body, signers)) as Promise<SubmitCommitResult>;
}

async function refusal(p: Promise<unknown>): Promise<ContractError> {
  try {
    await p;
  } catch (err) {
    return err as ContractError;
  }
  assert.fail("expected a refusal, the call succeeded");
}

before(async () => {
  modules = await predicateModules();
  identity = generateKeyPair();
  access = generateKeyPair();
});
// Every hub the file started: a test that failed before its stop() left its hub running, and
// the next test's start() took its place in `hub`, so stop() alone never reached it.
after(killAllHubs);

describe("custom predicates in a served hub (PostgreSQL)", () => {
  const ids: Record<string, string> = {};
  const heads: Record<string, string> = {};

  it("accepts and refuses with the default gas limit, deployed at genesis and by commit", async () => {
    const c = await start();
    await c.register(identity.seed, access.seed);
    const key = identity.publicKey.toString("hex");
    const genesis = await c.createContract({
      model: MODEL,
      rules: [],
      state: {
        "/users/owner.id": key,
        "/_code/custom/okarg.wasm": base64(modules.okarg),
        "/_code/custom/loop.wasm": base64(modules.loop),
      },
    });
    ids.genesis = genesis.contract_id;
    await submit(c, ids.genesis, { action: "USE" });
    const err = await refusal(submit(c, ids.genesis, { action: "LOOP" }));
    assert.equal(err.code, "VALIDATION_FAILED");
    const failed = customFailure(err, "+loop(1)");
    assert.match(failed.errors?.[0] ?? "", /^out_of_gas: /);
    assert.equal(failed.gas_used, 10_000_000);

    ids.byCommit = (await c.createContract({ model: MODEL, rules: [], state: { "/users/owner.id": key } })).contract_id;
    const install = { method: "post", path: "/_code/custom/okarg.wasm", value: base64(modules.okarg) };
    await submit(c, ids.byCommit, { ...install, action_labels: ["INSTALL"] }, true);
    const used = await submit(c, ids.byCommit, { action: "USE" });
    assert.equal(used.index, 2);

    // Deployed at genesis, never used: loads without running a predicate.
    ids.unused = (
      await c.createContract({
        model: MODEL,
        rules: [],
        state: { "/users/owner.id": key, "/_code/custom/okarg.wasm": base64(modules.okarg) },
      })
    ).contract_id;
    for (const [name, id] of Object.entries(ids)) heads[name] = (await c.getState(id)).head;
    await stop();
  });

  it("with --no-wasm refuses to decide: 503 UNAVAILABLE wasm_disabled", async () => {
    const c = await start("--no-wasm");
    assert.match(hub!.output(), /^WASM\s+custom predicates off/m);
    const err = await refusal(submit(c, ids.unused!, { action: "USE" }));
    assert.equal(err.code, "UNAVAILABLE");
    assert.equal(err.details?.reason, "wasm_disabled");
    assert.equal(err.details?.property, '+okarg("ok")');
    // A commit refused before any custom predicate is decided as usual, its explanation
    // naming the custom predicates it did not run.
    const nope = await refusal(submit(c, ids.unused!, { action: "NOPE" }));
    assert.equal(nope.code, "VALIDATION_FAILED");
    assert.equal(nope.details?.reason, "no_transition");
    assert.equal(nope.details?.wasm_disabled, true);
    assert.equal((customFailure(nope, '+okarg("ok")') as { kind?: string }).kind, "not_evaluated");
    // A log whose replay needs a custom predicate cannot be loaded either (never CORRUPTED).
    const load = await refusal(c.getState(ids.genesis!));
    assert.equal(load.code, "UNAVAILABLE");
    assert.equal(load.details?.reason, "wasm_disabled");
    await stop();
  });

  it("a restarted hub replays every custom predicate to the same heads, and verify agrees", async () => {
    const c = await start();
    for (const [name, id] of Object.entries(ids)) assert.equal((await c.getState(id)).head, heads[name], name);
    const used = await submit(c, ids.genesis!, { action: "USE" });
    assert.equal(used.index, 2);
    await stop();
    const verify = spawnSync(process.execPath, [BIN, "verify", "--database-url", db.url, "--json"], {
      encoding: "utf8",
    });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const { contracts } = JSON.parse(verify.stdout) as { contracts: { contract_id: string; ok: boolean }[] };
    for (const id of Object.values(ids)) assert.equal(contracts.find((r) => r.contract_id === id)?.ok, true, id);
  });
});
