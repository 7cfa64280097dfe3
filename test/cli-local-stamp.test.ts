/**
 * A local commit is judged at the time the hub would stamp it: never before the head's time
 * (docs/protocol.md, "Commit timestamps"). When the head was stamped by a clock ahead of this
 * machine's (here: the head commit's time moved past the deadline in the working copy), a
 * commit that needs `before(deadline)` is refused locally, as the hub would refuse it.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

let hub: HubProcess;
let actor: Actor;

before(async () => {
  const base = tempDir("local-stamp");
  hub = await startHubProcess(join(base, "hub-data"));
  actor = new Actor("owner", base, hub.url);
  await actor.ok(["keygen", "--name", "owner"]);
  await actor.ok(["register"]);
  writeFileSync(
    join(actor.root, "deadline.modality"),
    "model D {\n  initial open\n  open -> open [+NOTE]\n  open -> closed [+CLOSE +before(/terms/deadline.datetime)]\n  closed -> closed []\n}\n",
  );
  await actor.ok(["init", "c", "--model", "deadline.modality"]);
});
after(async () => hub?.stop());

describe("local commits and the head's time", () => {
  it("refuses locally a before() deadline the head's time has passed, though this clock has not", async () => {
    const wc = join(actor.root, "c");
    const deadline = new Date(Date.now() + 86_400_000).toISOString();
    await actor.ok(["commit", "--post", "/terms/deadline.datetime", deadline, "--action", "NOTE"], wc);
    // As if the hub that stamped the head ran two days ahead.
    const dir = join(wc, ".contract", "commits");
    const last = join(dir, readdirSync(dir).sort().at(-1)!);
    const head = JSON.parse(readFileSync(last, "utf8")) as { timestamp: number };
    head.timestamp = Math.floor(Date.now() / 1000) + 2 * 86_400;
    writeFileSync(last, JSON.stringify(head));
    const r = await actor.run(["commit", "--action", "CLOSE", "--json"], wc);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<{ code: string; details: { reason: string } }>();
    assert.deepEqual([doc.code, doc.details.reason], ["VALIDATION_FAILED", "no_transition"]);
  });
});
