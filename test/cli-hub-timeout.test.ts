/**
 * The bound on each request to the hub (`--timeout <ms>`, `CONTRACT_HUB_TIMEOUT`) against a
 * hub that accepts every request and never answers: a real loopback HTTP server holding each
 * request open, every command a real process. Bounded, a plain read (`clone`, `pull`) fails
 * with UNAVAILABLE `timeout` and exits 1; unbounded, it would wait out the HTTP client's own
 * ~300 s per attempt, three attempts. Each run is killed after 60 s, which only a process
 * that does not give up reaches.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, cli, type HubProcess, type Run, startHubProcess, tempDir } from "./cli-support.js";

const BANK = "model bank {\n  initial open\n  open -> open [+CREATE]\n}\n";
/** Far beyond the 2 s bound the runs set: only a process that keeps waiting is killed. */
const KILL_AFTER_MS = 60_000;

let base: string;
let hub: HubProcess;
let silent: Server;
let silentUrl: string;
let owner: Actor;
let contractId: string;
const held: ServerResponse[] = [];

before(async () => {
  base = tempDir("hub-timeout");
  silent = createServer((_req, res) => {
    held.push(res);
  });
  await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", ok));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  // A working copy made on a real hub, to be pulled from the silent one with --hub.
  hub = await startHubProcess(join(base, "hub-data"));
  owner = new Actor("owner", base, hub.url);
  await owner.ok(["keygen", "--name", "o"]);
  await owner.ok(["register"]);
  writeFileSync(join(owner.root, "bank.modality"), BANK);
  contractId = (await owner.ok<{ contract_id: string }>(["init", "bank", "--model", "bank.modality"])).contract_id;
});
after(async () => {
  silent?.closeAllConnections();
  await new Promise((ok) => silent?.close(ok));
  await hub?.stop();
});

interface ErrorDoc {
  code: string;
  details?: { reason?: string; timeout_ms?: number };
}

/** Runs `args --json` in `cwd` with `env`; the run must end by itself. */
async function run(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const r = await cli([...args, "--json"], { cwd, home: owner.home, env, killAfterMs: KILL_AFTER_MS });
  assert.equal(r.killed, false, `contract-hub ${args.join(" ")} did not give up\n${r.stdout}\n${r.stderr}`);
  return r;
}

function assertTimedOut(r: Run, ms: number): void {
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const doc = r.json<ErrorDoc>();
  assert.equal(doc.code, "UNAVAILABLE", r.stdout);
  assert.equal(doc.details?.reason, "timeout", r.stdout);
  assert.equal(doc.details?.timeout_ms, ms, r.stdout);
}

describe("a hub that accepts requests and never answers", () => {
  it("clone --timeout 2000 gives up: UNAVAILABLE timeout, exit 1", async () => {
    const r = await run(["clone", `${silentUrl}/${contractId}`, "copy", "--timeout", "2000"], base);
    assertTimedOut(r, 2000);
  });

  it("pull under CONTRACT_HUB_TIMEOUT=2000 gives up: UNAVAILABLE timeout, exit 1", async () => {
    const r = await run(["pull", "--hub", silentUrl], join(owner.root, "bank"), { CONTRACT_HUB_TIMEOUT: "2000" });
    assertTimedOut(r, 2000);
  });

  it("--timeout wins over CONTRACT_HUB_TIMEOUT", async () => {
    const r = await run(["pull", "--hub", silentUrl, "--timeout", "1500"], join(owner.root, "bank"), {
      CONTRACT_HUB_TIMEOUT: "3600000",
    });
    assertTimedOut(r, 1500);
  });

  it("a timeout that is not a whole number of ms is a usage error naming its source (exit 2)", async () => {
    const flag = await run(["pull", "--hub", silentUrl, "--timeout", "2s"], join(owner.root, "bank"));
    assert.equal(flag.code, 2, flag.stdout + flag.stderr);
    assert.equal(flag.json<ErrorDoc>().code, "USAGE");
    assert.match(flag.stderr, /--timeout/);
    const env = await run(["pull", "--hub", silentUrl], join(owner.root, "bank"), { CONTRACT_HUB_TIMEOUT: "-1" });
    assert.equal(env.code, 2, env.stdout + env.stderr);
    assert.equal(env.json<ErrorDoc>().code, "USAGE");
    assert.match(env.stderr, /CONTRACT_HUB_TIMEOUT/);
  });
});
