/**
 * A hub address that is not the hub's REST address, as a person types it: the JSON-RPC port
 * (which answers every REST path with a JSON-RPC error object) is named as such, with the
 * exit code and error code of any other refusal from upstream, not as "[object Object]".
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

let hub: HubProcess;
let actor: Actor;
let contractId: string;

before(async () => {
  const base = tempDir("wrong-address");
  hub = await startHubProcess(join(base, "hub-data"));
  actor = new Actor("owner", base, hub.url);
  await actor.ok(["keygen", "--name", "owner"]);
  await actor.ok(["register"]);
  writeFileSync(join(actor.root, "open.modality"), "model open {\n  initial open\n  open -> open []\n}\n");
  contractId = (await actor.ok<{ contract_id: string }>(["init", "c", "--model", "open.modality"])).contract_id;
});
after(async () => hub?.stop());

describe("a hub address that is the JSON-RPC port", () => {
  it("status --hub <rpc url> is UPSTREAM_ERROR json_rpc_endpoint, exit 1", async () => {
    const r = await actor.run(["status", "--hub", hub.rpcUrl, "--json"], join(actor.root, "c"));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<{ code: string; details: Record<string, unknown> }>();
    assert.deepEqual([doc.code, doc.details.reason, doc.details.status], ["UPSTREAM_ERROR", "json_rpc_endpoint", 404]);
  });

  it("clone <rpc url>/<id> is refused the same way and writes nothing", async () => {
    const r = await actor.run(["clone", `${hub.rpcUrl}/${contractId}`, "copy", "--json"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<{ code: string; details: Record<string, unknown> }>();
    assert.deepEqual([doc.code, doc.details.reason], ["UPSTREAM_ERROR", "json_rpc_endpoint"]);
    const human = await actor.run(["clone", `${hub.rpcUrl}/${contractId}`, "copy"]);
    assert.equal(human.code, 1);
    assert.doesNotMatch(human.stderr, /\[object Object\]/);
    assert.equal(existsSync(join(actor.root, "copy")), false);
  });
});
