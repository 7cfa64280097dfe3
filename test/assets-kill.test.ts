/**
 * kill -9 between SEND and RECV loses nothing (PROTOCOL.md §6, §12): a child hub process
 * SENDs and RECVs on four contract pairs and is SIGKILLed mid-stream; after reopening the
 * data directory every acknowledged SEND and RECV is stored with its effects, the asset
 * invariants hold, and the SENDs that were not received yet can still be received, once.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, it } from "node:test";
import { fileURLToPath } from "node:url";
import { checkAssetInvariants } from "../src/hub/assets/checkAssetInvariants.js";
import { recv, rpcCodeOf } from "./asset-fixtures.js";
import { Actor, cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

after(cleanup);

/**
 * How long the child may take to print its acknowledgements (a deadline, not a measurement: it
 * prints them in seconds). One still running then has hung: it is killed and the test fails
 * with that, instead of holding the file until the runner's limit.
 */
const DEADLINE_MS = 60_000;

/** Spawns the child and SIGKILLs it after `acks` acknowledgements; returns the ack lines, split. */
function runAndKill(dir: string, acks: number, aliceSeed: Buffer): Promise<string[][]> {
  const script = fileURLToPath(new URL("./asset-kill-child.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, dir, aliceSeed.toString("hex")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const seen: string[][] = [];
  let buffer = "";
  let expired = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (seen.length >= acks) return;
      expired = true;
      child.kill("SIGKILL");
    }, DEADLINE_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        const parts = line.split(" ");
        if (parts[0] !== "ack") continue;
        seen.push(parts.slice(1));
        if (seen.length === acks) child.kill("SIGKILL");
      }
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (expired)
        reject(new Error(`child still running after ${DEADLINE_MS} ms with ${seen.length} of ${acks} acks: killed`));
      else if (signal === "SIGKILL") resolve(seen);
      else reject(new Error(`child exited with ${code ?? signal} before ${acks} acks`));
    });
  });
}

it("keeps every acknowledged SEND and RECV after kill -9, and the pending SENDs stay receivable once", async () => {
  const dir = tempDir();
  // The child's alice owns the contracts; the same party receives the pending SENDs after the kill.
  const alice = new Actor("alice");
  const acked = await runAndKill(dir, 300, alice.seed);
  const hub = await openSqliteHub({ dataDir: dir });
  try {
    const sends = new Map<string, { to: string; amount: number }>();
    const received = new Map<string, string>();
    for (const a of acked) {
      if (a[0] === "send") sends.set(a[3]!, { to: a[2]!, amount: Number(a[4]) });
      if (a[0] === "recv") received.set(a[2]!, a[3]!);
    }
    assert.ok(sends.size > 0 && received.size > 0);
    for (const [hash, s] of sends) {
      const stored = await hub.store.getSend(hash);
      assert.equal(stored?.amount, s.amount, `acknowledged SEND ${hash} missing`);
      if (received.has(hash))
        assert.equal(stored.receivedBy, received.get(hash), `acknowledged RECV of ${hash} missing`);
    }
    const ids = [0, 1, 2, 3].flatMap((i) => [`issuer${i}`, `holder${i}`]);
    const report = await checkAssetInvariants(hub.store, ids);
    assert.deepEqual(report.issues, []);
    // Every stored SEND not received yet (acknowledged or not) is received now, once.
    let pending = 0;
    for (const i of [0, 1, 2, 3]) {
      for await (const c of hub.store.readCommits(`issuer${i}`)) {
        if (c.data[0]?.method !== "send" || (await hub.store.getSend(c.hash))!.receivedBy !== null) continue;
        pending++;
        await recv(hub, alice, `holder${i}`, c.hash);
        assert.equal(await rpcCodeOf(recv(hub, alice, `holder${i}`, c.hash)), -32032);
      }
    }
    assert.ok(pending <= 4, "at most one SEND per pair can be between its SEND and its RECV");
    const after = await checkAssetInvariants(hub.store, ids);
    assert.deepEqual(after.issues, []);
    for (const i of [0, 1, 2, 3]) {
      const held = (await hub.store.getAssets(`issuer${i}`)).balances[0]!.amount;
      const got = (await hub.store.getAssets(`holder${i}`)).balances[0]?.amount ?? 0;
      assert.equal(held + got, 1_000_000_000);
    }
  } finally {
    await hub.close();
  }
});
