/**
 * Commands run at once, and a run's flags over what the working copy remembers, against a
 * real hub process: a file written by several commands goes through each writer's own temp
 * file, and status reports the hub it asked.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

let base: string;
let hub: HubProcess;
let alice: Actor;
const wc = () => join(alice.root, "notes");

before(async () => {
  base = tempDir("concurrent");
  hub = await startHubProcess(join(base, "data"));
  alice = new Actor("alice", base, hub.url);
  await alice.ok(["keygen", "--name", "alice"]);
  await alice.ok(["register", "--key", "alice"]);
  writeFileSync(join(base, "notes.modality"), "model Notes {\n  initial open\n  open -> open []\n}\n");
  await alice.ok(["init", "notes", "--model", join(base, "notes.modality"), "--party", "author=alice"]);
});
after(async () => hub?.stop());

describe("commands at once", () => {
  it("verify --remote keeps its checkpoint through a temp file of its own, never another writer's", async () => {
    // The temp file of a writer still at work, at the name every writer used to share.
    const other = join(wc(), ".contract", "log.json.tmp");
    writeFileSync(other, "another writer's checkpoint");
    const runs = await Promise.all([1, 2, 3].map(() => alice.run(["verify", "--remote", "--json"], wc())));
    assert.deepEqual(
      runs.map((r) => [r.code, r.json().ok]),
      [
        [0, true],
        [0, true],
        [0, true],
      ],
    );
    assert.equal(readFileSync(other, "utf8"), "another writer's checkpoint");
    const kept = JSON.parse(readFileSync(join(wc(), ".contract", "log.json"), "utf8")) as {
      checkpoint: { size: number };
    };
    assert.equal(kept.checkpoint.size, 1);
    // No temp file of these runs is left behind.
    assert.deepEqual(
      readdirSync(join(wc(), ".contract")).filter((f) => f.endsWith(".tmp")),
      ["log.json.tmp"],
    );
  });
});

describe("status", () => {
  it("reports the hub it asked: --hub over the remembered one", async () => {
    const other = hub.url.replace("127.0.0.1", "localhost");
    assert.notEqual(other, hub.url);
    const asked = await alice.ok<{ hub: string; behind: number }>(["status", "--hub", other], wc());
    assert.deepEqual([asked.hub, asked.behind], [other, 0]);
    const remembered = await alice.ok<{ hub: string }>(["status"], wc());
    assert.equal(remembered.hub, hub.url);
    const offline = await alice.ok<{ hub: string; behind: null }>(["status", "--offline"], wc());
    assert.deepEqual([offline.hub, offline.behind], [hub.url, null]);
  });
});
