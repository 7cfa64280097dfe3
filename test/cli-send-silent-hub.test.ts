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
import { after, before, describe, it } from "node:test";
import type { Actor, Run, SendDoc } from "./cli-support.js";
import { type BanksBehindProxy, banksBehindProxy } from "./support/banksBehindProxy.js";
import type { TamperingProxy } from "./support/tamperingProxy.js";

/** Far beyond the 2 s the checks wait: only a process that does not exit is killed. */
const KILL_AFTER_MS = 60_000;

let banks: BanksBehindProxy;
let relay: Actor;
let proxy: TamperingProxy;
let depot: string;
let sink: string;
let sinkId: string;
let pushedSend: string;

before(async () => {
  banks = await banksBehindProxy("send-silent-hub");
  ({ relay, proxy, depot, sink, sinkId } = banks);
  await relay.ok(["create", "--asset", "GOLD", "--quantity", "10"], depot);
  pushedSend = (await relay.ok<SendDoc>(sendArgs(3), depot)).hash;
  await relay.ok(["push"], depot);
});
after(async () => banks?.close());

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
