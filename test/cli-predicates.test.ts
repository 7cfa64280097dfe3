/**
 * A log decided by custom WASM predicates replays to the same answer everywhere, every step
 * a real process: a working copy deploys modules and commits through them (local validation),
 * pushes to `contract-hub start`, a second working copy clones the log (untrusted replay
 * through the predicates), and `verify` checks both working copies and, the hub stopped, its
 * store. Every USE needs two modules to hold (one reads its whole input) and SKIP needs one
 * not to, so a replay that could not run them, or ran them on other input, refuses a commit
 * or ends in another state, and the clone or verify reports it.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { compileWat } from "../src/predicates/wasm/compileWat.js";
import { Actor, cli, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";
import { SCAN_WAT } from "./support/wasmModules.js";

const MODEL = `model Predicates {
  initial ready
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> used [+USE +okarg("ok") +scan(1)]
  used -> used [+USE +okarg("ok") +scan(1)]
  used -> skipped [+SKIP -okarg("no")]
  used -> refused [+DENY +okarg("no")]
  skipped -> skipped []
  refused -> refused []
}`;

let base: string;
let hub: HubProcess;
let owner: Actor;
let reader: Actor;
let contractId: string;

before(async () => {
  base = tempDir("predicates");
  hub = await startHubProcess(join(base, "hub-data"));
  owner = new Actor("owner", base, hub.url);
  reader = new Actor("reader", base, hub.url);
  const okarg = await compileWat(readFileSync(new URL("./fixtures/wasm/predicate.wat", import.meta.url), "utf8"));
  writeFileSync(join(base, "okarg.wasm"), okarg);
  writeFileSync(join(base, "scan.wasm"), await compileWat(SCAN_WAT));
  writeFileSync(join(base, "model.modality"), MODEL);
});
after(async () => hub?.stop());

describe("custom predicates through the command line", () => {
  it("a working copy deploys modules and commits through them; the hub takes the push", async () => {
    for (const a of [owner, reader]) {
      a.publicKey = (await a.ok<{ public_key: string }>(["keygen", "--name", a.name])).public_key;
      await a.ok(["register"]);
    }
    const init = await owner.ok<{ contract_id: string }>([
      "init",
      ".",
      "--model",
      join(base, "model.modality"),
      "--party",
      "owner=owner",
    ]);
    contractId = init.contract_id;
    for (const name of ["okarg", "scan"])
      await owner.ok([
        "predicate",
        "deploy",
        name,
        join(base, `${name}.wasm`),
        "--action",
        "INSTALL",
        "--sign",
        "owner",
      ]);
    const values = ["a", "bb".repeat(40), JSON.stringify({ z: 1, a: [2, { y: 3, b: 4 }] })];
    for (const [n, value] of values.entries())
      await owner.ok(["commit", "--post", `/notes/n${n}.text`, value, "--action", "USE"]);
    const skip = await owner.ok<{ state: { current_state: string } }>(["commit", "--action", "SKIP"]);
    assert.equal(skip.state.current_state, "skipped");
    const pushed = await owner.ok<{ pushed: number; head: string }>(["push"]);
    assert.equal(pushed.pushed, 6);
  });

  it("a second working copy clones the log, replaying every predicate untrusted, to the same head", async () => {
    const clone = await reader.ok<{ commits: number; head: string; state: { current_state: string } }>([
      "clone",
      `${hub.url}/${contractId}`,
      ".",
    ]);
    assert.equal(clone.commits, 7);
    assert.equal(clone.state.current_state, "skipped");
    const status = await owner.ok<{ head: string }>(["status"]);
    assert.equal(clone.head, status.head);
  });

  it("verify replays both working copies and, the hub stopped, its store, through the predicates", async () => {
    for (const a of [owner, reader]) {
      const v = await a.ok<{ ok: boolean; commits: number }>(["verify"]);
      assert.deepEqual([v.ok, v.commits], [true, 7], a.name);
    }
    await hub.stop();
    const r = await cli(["verify", "--data-dir", join(base, "hub-data"), "--json"], {
      cwd: base,
      home: owner.home,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const { contracts } = r.json<{ contracts: { contract_id: string; ok: boolean; commits?: number }[] }>();
    assert.equal(contracts.find((c) => c.contract_id === contractId)?.ok, true);
  });
});
