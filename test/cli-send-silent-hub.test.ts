/**
 * The bounded checks of `send` and `recv` against a hub that accepts each request and never
 * answers: a real hub on loopback behind a real HTTP proxy that holds every request open,
 * every command a real process. The command stops waiting after 2 s (a refused commit's
 * question of how far behind the hub it is, after 1 s), records the commit with its warnings
 * (or reports the refusal), and the process exits: the requests it stopped waiting for are cancelled and
 * their connections closed, instead of keeping the process alive for as long as the hub holds
 * them. Each run is killed after 60 s, which only a process that does not exit reaches.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, type Run, startHubProcess, tempDir } from "./cli-support.js";
import { startTamperingProxy, type TamperingProxy } from "./support/tamperingProxy.js";

interface SendDoc {
  hash: string;
  warning_codes?: string[];
}

const BANK =
  "model bank {\n  initial open\n  open -> open [+CREATE]\n  open -> open [+SEND]\n  open -> open [+RECV]\n}\n";
/** Far beyond the 2 s the checks wait: only a process that does not exit is killed. */
const KILL_AFTER_MS = 60_000;

let hub: HubProcess;
let proxy: TamperingProxy;
let relay: Actor;
let depot: string;
let sink: string;
let sinkId: string;
let pushedSend: string;

before(async () => {
  const base = tempDir("send-silent-hub");
  hub = await startHubProcess(join(base, "hub-data"));
  proxy = await startTamperingProxy(hub.url);
  // Both working copies remember the proxy as their hub.
  relay = new Actor("relay", base, proxy.url);
  await relay.ok(["keygen", "--name", "r"]);
  await relay.ok(["register"]);
  writeFileSync(join(relay.root, "bank.modality"), BANK);
  await relay.ok(["init", "depot", "--model", "bank.modality"]);
  sinkId = (await relay.ok<{ contract_id: string }>(["init", "sink", "--model", "bank.modality"])).contract_id;
  depot = join(relay.root, "depot");
  sink = join(relay.root, "sink");
  await relay.ok(["create", "--asset", "GOLD", "--quantity", "10"], depot);
  pushedSend = (await relay.ok<SendDoc>(sendArgs(3), depot)).hash;
  await relay.ok(["push"], depot);
});
after(async () => {
  await proxy?.close();
  await hub?.stop();
});

function sendArgs(amount: number, ...more: string[]): string[] {
  return ["send", "--asset", "GOLD", "--to", sinkId, "--amount", String(amount), ...more];
}

/** Runs `args --json` while the hub holds every request; the run must end by itself. */
async function againstSilentHub(args: string[], cwd: string): Promise<Run> {
  proxy.rule = () => null;
  try {
    const r = await relay.run([...args, "--json"], cwd, KILL_AFTER_MS);
    assert.equal(r.killed, false, `contract-hub ${args.join(" ")} did not exit\n${r.stdout}\n${r.stderr}`);
    return r;
  } finally {
    proxy.rule = null;
  }
}

describe("send and recv when the hub accepts requests and never answers", () => {
  it("send records the SEND with both warnings and exits 0", async () => {
    const r = await againstSilentHub(sendArgs(1), depot);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.json<SendDoc>().warning_codes, ["destination_not_checked", "balance_not_checked"]);
    await relay.ok(["reset", "--hard", "origin"], depot);
  });

  it("send --no-recipient-check warns of the balance alone and exits 0", async () => {
    const r = await againstSilentHub(sendArgs(1, "--no-recipient-check"), depot);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.json<SendDoc>().warning_codes, ["balance_not_checked"]);
    await relay.ok(["reset", "--hard", "origin"], depot);
  });

  it("a refused commit asks the hub how far behind it is for a second, then exits with its refusal", async () => {
    // The model has no such action: refused locally, and the refusal's diagnosis asks the hub
    // whether the working copy is behind it (commitLocally's commitsBehind).
    const r = await againstSilentHub(["commit", "--action", "WITHDRAW"], depot);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const err = r.json<{ code: string; details?: { diagnosis?: { kind: string }[] } }>();
    assert.equal(err.code, "VALIDATION_FAILED");
    assert.deepEqual(
      err.details?.diagnosis?.map((d) => d.kind),
      ["unknown_action"],
    );
  });

  it("recv of a full hash leaves the hub's check to the push and exits 0", async () => {
    const r = await againstSilentHub(["recv", "--send", pushedSend], sink);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(typeof r.json<SendDoc>().hash, "string");
    // The hub answers again: the RECV recorded unasked is the one it accepts at push.
    await relay.ok(["push"], sink);
  });
});
