/**
 * The command line's watch on the hub's log, against real hub processes: a working copy
 * pins the log key at init and clone and checks every pull, push and `verify --remote`; a
 * hub whose data directory was put back to an older copy (rollback) and a hub that grew a
 * different history from a copy (fork) are both refused by name, with exit 1.
 */
import assert from "node:assert/strict";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

interface ErrorDoc {
  code: string;
  error: string;
  details: { reason: string; check: string; kept_size: number; hub_size: number };
}

let base: string;
let hub: HubProcess;
let alice: Actor;
const wc = () => join(alice.root, "notes");
const logState = () =>
  JSON.parse(readFileSync(join(wc(), ".contract", "log.json"), "utf8")) as {
    origin: string;
    public_key: string;
    checkpoint: { size: number };
  };

before(async () => {
  base = tempDir("tlogcli");
  hub = await startHubProcess(join(base, "data"));
  alice = new Actor("alice", base, hub.url);
  await alice.ok(["keygen", "--name", "alice"]);
  await alice.ok(["register", "--key", "alice"]);
  writeFileSync(join(base, "notes.modality"), "model Notes {\n  initial open\n  open -> open []\n}\n");
});
after(async () => hub?.stop());

describe("a working copy checks the hub's log", () => {
  it("pins the log key at init and keeps each verified checkpoint", async () => {
    await alice.ok([
      "init",
      "notes",
      "--model",
      join(base, "notes.modality"),
      "--party",
      "author=alice",
      "--key",
      "alice",
    ]);
    const pinned = logState();
    assert.match(pinned.public_key, /^ed25519:[0-9a-f]{64}$/);
    assert.equal(pinned.checkpoint.size, 1);
    await alice.ok(["commit", "--post", "/notes/a.text", "one"], wc());
    const pushed = await alice.ok<{ log_size: number }>(["push"], wc());
    assert.equal(pushed.log_size, 2);
    assert.equal(logState().checkpoint.size, 2);
    const verified = await alice.ok<{ ok: boolean; log_size: number }>(["verify", "--remote"], wc());
    assert.deepEqual([verified.ok, verified.log_size], [true, 2]);
    const clone = await alice.ok<{ commits: number }>(["clone", `${hub.url}/${readConfig().contract_id}`, "copy"]);
    assert.equal(clone.commits, 2);
  });

  it("refuses a hand-edited log.json whose kept checkpoint lost its shape: CORRUPTED log_state, exit 1", async () => {
    const file = join(alice.root, "copy", ".contract", "log.json");
    const kept = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    for (const checkpoint of [undefined, { size: "2" }, { size: 2, root: "zz", note: "" }]) {
      writeFileSync(file, JSON.stringify({ ...kept, checkpoint }));
      const r = await alice.run(["verify", "--remote", "--json"], join(alice.root, "copy"));
      assert.equal(r.code, 1, JSON.stringify(checkpoint));
      assert.deepEqual(
        [r.json<ErrorDoc>().code, r.json<ErrorDoc>().details.reason],
        ["CORRUPTED", "log_state"],
        JSON.stringify(checkpoint),
      );
    }
    writeFileSync(file, JSON.stringify(kept));
  });

  it("names a hub whose data directory was put back to an older copy: rollback, exit 1", async () => {
    await hub.stop();
    const snapshot = join(base, "snapshot");
    cpSync(hub.dataDir, snapshot, { recursive: true });
    hub = await startHubProcess(hub.dataDir);
    await alice.ok(["commit", "--post", "/notes/b.text", "two"], wc());
    await alice.ok(["push", "--hub", hub.url], wc());
    assert.equal(logState().checkpoint.size, 3);
    await hub.stop();
    rmSync(hub.dataDir, { recursive: true });
    cpSync(snapshot, hub.dataDir, { recursive: true });
    hub = await startHubProcess(hub.dataDir);
    for (const args of [["pull"], ["push"], ["verify", "--remote"]]) {
      const r = await alice.run([...args, "--hub", hub.url, "--json"], wc());
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      const doc = r.json<ErrorDoc>();
      assert.equal(doc.code, "CORRUPTED");
      assert.deepEqual([doc.details.reason, doc.details.kept_size, doc.details.hub_size], ["log_rollback", 3, 2]);
    }
    const human = await alice.run(["pull", "--hub", hub.url], wc());
    assert.equal(human.code, 1);
    assert.match(human.stderr, /rollback check.*from 3 to 2/);
    assert.equal(logState().checkpoint.size, 3, "the kept checkpoint is not replaced by a refused one");
  });

  it("names a hub that grew another history from a copy of the log: fork, exit 1", async () => {
    // The rolled-back hub takes other commits past the size the working copy saw.
    const bob = new Actor("bob", base, hub.url);
    await bob.ok(["keygen", "--name", "bob"]);
    await bob.ok(["register", "--key", "bob"]);
    for (const name of ["b1", "b2"]) {
      await bob.ok(["init", name, "--model", join(base, "notes.modality"), "--party", "author=bob", "--key", "bob"]);
    }
    const r = await alice.run(["pull", "--hub", hub.url, "--json"], wc());
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<ErrorDoc>();
    assert.deepEqual([doc.details.reason, doc.details.kept_size, doc.details.hub_size], ["log_fork", 3, 4]);
  });
});

function readConfig(): { contract_id: string } {
  return JSON.parse(readFileSync(join(wc(), ".contract", "config.json"), "utf8"));
}
