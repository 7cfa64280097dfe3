/**
 * The --json documents of one command have one shape, whatever there was to do: a script
 * that reads `state` after `push` must find it also when nothing was left to push.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

interface PushDoc {
  contract_id: string;
  pushed: number;
  head: string;
  ahead: number;
  state: { current_state: string; head: string };
  log_size: number;
}

let hub: HubProcess;
let owner: Actor;
let copy: string;

before(async () => {
  const base = tempDir("json-documents");
  hub = await startHubProcess(join(base, "hub-data"));
  owner = new Actor("owner", base, hub.url);
  await owner.ok(["keygen", "--name", "owner"]);
  await owner.ok(["register"]);
  writeFileSync(join(owner.root, "open.modality"), "model open {\n  initial open\n  open -> open []\n}\n");
  await owner.ok(["init", "c", "--model", "open.modality"]);
  copy = join(owner.root, "c");
});
after(async () => hub?.stop());

describe("push --json", () => {
  it("prints the same document when there is nothing to push", async () => {
    await owner.ok(["commit", "--post", "/note.text", "one"], copy);
    const pushed = await owner.ok<PushDoc>(["push"], copy);
    const idle = await owner.ok<PushDoc>(["push"], copy);
    assert.deepEqual(Object.keys(idle).sort(), Object.keys(pushed).sort());
    assert.equal(pushed.pushed, 1);
    assert.deepEqual(
      [idle.pushed, idle.ahead, idle.head, idle.state.head, idle.state.current_state, idle.log_size],
      [0, 0, pushed.head, pushed.head, "open", pushed.log_size],
    );
  });
});
