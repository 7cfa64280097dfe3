/**
 * The bound on each request a witness makes to a followed hub (`--timeout <ms>`,
 * `CONTRACT_HUB_TIMEOUT`, docs/transparency.md "Witnesses") against a hub that accepts every
 * request and never answers: a real loopback HTTP server holding each request open, every
 * witness a real process. A silent hub costs one look its timeout and is reported as an
 * `error` with `reason: "timeout"`; `--once` goes on to the next hub and exits 1, a serving
 * witness goes on polling, and stopping it does not wait for a request the hub holds. Runs
 * are killed after 60 s, which only a process that does not give up reaches.
 */
import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { cli, type Run, tempDir } from "./cli-support.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { grow, killAllWitnesses, startWitness } from "./support/witnessProcess.js";

/** Far beyond the bounds the runs set: only a process that keeps waiting is killed. */
const KILL_AFTER_MS = 60_000;

let base: string;
let silent: Server;
let silentUrl: string;
/** How many requests the silent hub has been sent (and holds, until the sender gives up). */
let asked = 0;
const held: ServerResponse[] = [];
let hub: HubProcess;
let hubLog: string;
/** The silent hub's log: any well-formed verifier key, since it never shows a checkpoint. */
const silentLog = new LogKey(generateKeyPair().seed, "silent.test/log").info().verifier_key;

before(async () => {
  base = tempDir("witness-silent-hub");
  silent = createServer((_req, res) => {
    asked += 1;
    held.push(res);
  });
  await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", ok));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  hub = await startHub(join(base, "hub"));
  hubLog = (await new HubClient({ url: hub.url }).checkpointKey()).verifier_key;
  await grow(hub.url, 2);
});
after(async () => {
  await killAllWitnesses();
  await killAllHubs();
  silent?.closeAllConnections();
  await new Promise((ok) => silent?.close(ok));
});

interface FollowDoc {
  hubs: { hub: string; outcome: string; reason?: string; timeout_ms?: number }[];
}

/** `witness --once --json` over a fresh directory, following `hubs`; the run must end by itself. */
async function once(hubs: string[], extra: string[], env: Record<string, string> = {}): Promise<Run> {
  const args = ["witness", "--data-dir", tempDir("witness-dir"), "--log", silentLog, "--log", hubLog];
  const r = await cli([...args, ...hubs.flatMap((h) => ["--follow", h]), "--once", "--json", ...extra], {
    cwd: base,
    home: join(base, "home"),
    env,
    killAfterMs: KILL_AFTER_MS,
  });
  assert.equal(r.killed, false, `contract-hub witness did not give up\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Waits (at most 30 s) until `done()` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > end) assert.fail(`gave up waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

describe("a witness following a hub that accepts requests and never answers", () => {
  it("--once --timeout 1500: the hub is an error with reason timeout, the next hub is still cosigned, exit 1", async () => {
    const r = await once([silentUrl, hub.url], ["--timeout", "1500"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<FollowDoc>();
    assert.deepEqual(
      doc.hubs.map((h) => [h.hub, h.outcome, h.reason, h.timeout_ms]),
      [
        [silentUrl, "error", "timeout", 1500],
        [hub.url, "cosigned", undefined, undefined],
      ],
    );
  });

  it("--once under CONTRACT_HUB_TIMEOUT=1500 is bounded the same way", async () => {
    const r = await once([silentUrl], [], { CONTRACT_HUB_TIMEOUT: "1500" });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const [h] = r.json<FollowDoc>().hubs;
    assert.deepEqual([h?.outcome, h?.reason, h?.timeout_ms], ["error", "timeout", 1500]);
  });

  it("a timeout that is not a whole number of ms is a usage error (exit 2)", async () => {
    const r = await once([silentUrl], ["--timeout", "2s"]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.json<{ code: string }>().code, "USAGE");
    assert.match(r.stderr, /--timeout/);
  });

  it("a serving witness reports each timed-out look and goes on polling", async () => {
    const w = await startWitness(
      tempDir("witness-dir"),
      [silentLog],
      ["--follow", silentUrl, "--interval", "50", "--timeout", "500"],
    );
    const from = asked;
    // Three looks: the first two were each given up on, or the third would not have been sent.
    await until(() => asked - from >= 3, "three looks at the silent hub");
    const reports = w
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith(`contract-hub witness: cannot follow ${silentUrl}:`));
    assert.ok(reports.length >= 2, w.stderr());
    await w.stop();
  });

  it("stopping a witness does not wait for a look the hub holds (--timeout 0: no bound)", async () => {
    const w = await startWitness(tempDir("witness-dir"), [silentLog], ["--follow", silentUrl, "--timeout", "0"]);
    const from = asked;
    await until(() => asked - from >= 1, "a look at the silent hub");
    let stopped = false;
    const stopping = w.stop().then(() => {
      stopped = true;
    });
    await until(() => stopped, "the witness to exit after SIGTERM");
    await stopping;
  });
});
