/**
 * `init` that stops after the hub created the contract (the answer to the create call lost on
 * the way, here a proxy that turns it into a 503): the error names the contract and the clone
 * that makes its working copy, and that clone works.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";
import { json, startTamperingProxy, type TamperingProxy } from "./support/tamperingProxy.js";

let base: string;
let hub: HubProcess;
let proxy: TamperingProxy;
let alice: Actor;

before(async () => {
  base = tempDir("init-orphan");
  hub = await startHubProcess(join(base, "data"));
  proxy = await startTamperingProxy(hub.url);
  alice = new Actor("alice", base, proxy.url);
  await alice.ok(["keygen", "--name", "alice"]);
  await alice.ok(["register"]);
  writeFileSync(join(base, "notes.modality"), "model Notes {\n  initial open\n  open -> open []\n}\n");
});
after(async () => {
  await proxy?.close();
  await hub?.stop();
});

it("names the contract it created and the clone that makes its working copy", async () => {
  const id = "c_orphan_test_1";
  proxy.rule = (path, upstream) =>
    path === `/contracts/${id}/push` ? json(503, { error: "connection lost", code: "UNAVAILABLE" }) : upstream;
  const r = await alice.run(["init", "notes", "--model", join(base, "notes.modality"), "--id", id, "--json"]);
  proxy.rule = null;
  assert.equal(r.code, 1, r.stdout);
  const doc = r.json<{ code: string; details: { contract_id: string; clone: string } }>();
  assert.deepEqual([doc.code, doc.details.contract_id], ["UNAVAILABLE", id]);
  const [cmd, verb, url, dir] = doc.details.clone.split(" ");
  assert.deepEqual([cmd, verb, url], ["contract-hub", "clone", `${proxy.url}/${id}`]);
  const cloned = await alice.ok<{ contract_id: string; commits: number }>(["clone", url!, dir!]);
  assert.deepEqual([cloned.contract_id, cloned.commits], [id, 1]);
});
