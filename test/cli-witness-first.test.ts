/**
 * init and clone with --witness against a hub whose checkpoints carry no such cosignature:
 * refused (CORRUPTED log_witness, exit 1) before anything is written, so init creates no
 * contract on the hub and neither leaves a working copy pinned to witnesses it cannot use.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { rawPublicKey } from "../src/contract/keys.js";
import { witnessVerifierKey } from "../src/tlog/cosignature.js";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

interface ErrorDoc {
  code: string;
  details: Record<string, unknown>;
}

let hub: HubProcess;
let owner: Actor;
let witness: string;

async function contractCount(): Promise<number> {
  const res = await fetch(`${hub.url}/contracts?limit=1`);
  return ((await res.json()) as { total: number }).total;
}

before(async () => {
  const base = tempDir("witness-first");
  hub = await startHubProcess(join(base, "hub-data"));
  owner = new Actor("owner", base, hub.url);
  await owner.ok(["keygen", "--name", "owner"]);
  await owner.ok(["register"]);
  writeFileSync(join(owner.root, "open.modality"), "model open {\n  initial open\n  open -> open []\n}\n");
  const { publicKey } = generateKeyPairSync("ed25519");
  witness = witnessVerifierKey({ name: "witness.example/w1", publicKey: rawPublicKey(publicKey) });
});
after(async () => hub?.stop());

describe("--witness that the hub's checkpoint cannot satisfy", () => {
  it("init is refused before the contract is created, and writes no working copy", async () => {
    const before = await contractCount();
    const r = await owner.run(["init", "c", "--model", "open.modality", "--witness", witness, "--json"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<ErrorDoc>();
    assert.deepEqual([doc.code, doc.details.reason], ["CORRUPTED", "log_witness"]);
    assert.equal(existsSync(join(owner.root, "c", ".contract")), false);
    assert.equal(await contractCount(), before);
  });

  it("clone is refused without writing a working copy, and a clone without --witness then works", async () => {
    const id = (await owner.ok<{ contract_id: string }>(["init", "src", "--model", "open.modality"])).contract_id;
    const r = await owner.run(["clone", `${hub.url}/${id}`, "copy", "--witness", witness, "--json"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual([r.json<ErrorDoc>().code, r.json<ErrorDoc>().details.reason], ["CORRUPTED", "log_witness"]);
    assert.equal(existsSync(join(owner.root, "copy", ".contract")), false);
    await owner.ok(["clone", `${hub.url}/${id}`, "copy"]);
  });
});
