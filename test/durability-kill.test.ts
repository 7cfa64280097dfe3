import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { fileURLToPath } from "node:url";
import { computeCommitHash } from "../src/contract/commitHash.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";

const dir = mkdtempSync(join(tmpdir(), "durability-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * How long the appender may take to print its acknowledgements (a deadline, not a measurement:
 * it prints them in seconds). One still running then has hung: it is killed and the test fails
 * with that, instead of holding the file until the runner's limit.
 */
const DEADLINE_MS = 60_000;

/** Spawns the appender and SIGKILLs it once `acks` acknowledgements were printed; returns them. */
function runAndKill(acks: number): Promise<{ id: string; index: number; hash: string }[]> {
  const script = fileURLToPath(new URL("./durability-appender.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
  const seen: { id: string; index: number; hash: string }[] = [];
  let count = 0;
  let buffer = "";
  let expired = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (count >= acks) return;
      expired = true;
      child.kill("SIGKILL");
    }, DEADLINE_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        const [tag, id, index, hash] = line.split(" ");
        if (tag !== "ack") continue;
        seen.push({ id: id!, index: Number(index), hash: hash! });
        if (++count === acks) child.kill("SIGKILL");
      }
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (expired)
        reject(new Error(`appender still running after ${DEADLINE_MS} ms with ${count} of ${acks} acks: killed`));
      else if (signal === "SIGKILL") resolve(seen);
      else reject(new Error(`appender exited with ${code ?? signal} before ${acks} acks`));
    });
  });
}

it("keeps every acknowledged commit, chained, after kill -9 mid-stream", async () => {
  const acked = await runAndKill(400);
  assert.ok(acked.length >= 400);
  const store = await SqliteStore.open({ dataDir: dir });
  try {
    for (const { id, index, hash } of acked) {
      const stored = await store.getCommitAt(id, index);
      assert.equal(stored?.hash, hash, `acknowledged ${id}/${index} missing after kill`);
    }
    for (const id of ["k0", "k1", "k2", "k3"]) {
      const rec = await store.getContract(id);
      assert.ok(rec !== null);
      let parent: string | null = null;
      let index = 0;
      for await (const c of store.readCommits(id)) {
        assert.equal(c.index, index++);
        assert.equal(c.parent, parent);
        assert.equal(computeCommitHash(id, c.parent, c.data), c.hash);
        parent = c.hash;
      }
      assert.equal(index, rec.length);
      assert.equal(parent, rec.head);
    }
  } finally {
    await store.close();
  }
});
