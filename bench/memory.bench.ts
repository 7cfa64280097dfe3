/**
 * Hub memory with 10,000 contracts of 100 commits each (docs/benchmarks.md, reliability
 * section): the data directory is generated once through the store and cached; a real
 * `contract-hub start` over it is measured idle, then after every contract was touched by
 * a state read and a log page (its state replayed and, up to the LRU's 1,000, cached), then
 * after a second pass. Run: npx tsx bench/run.ts memory
 */
import { startHub } from "../test/support/hubProcess.js";
import { cachedDataDir, dirBytes, writeContract } from "./benchData.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "memory";
const CONTRACTS = 10_000;
const LENGTH = 100;
/** Reads in flight while touching: enough to keep the hub busy on 2 cores. */
const CONCURRENCY = 16;

const MiB = 2 ** 20;

export default async function memory(r: Reporter): Promise<void> {
  const { dataDir, generatedMs } = await cachedDataDir("memory-10k-v1", async (store) => {
    // 50 contracts at a time, so group commit shares their transactions.
    for (let c = 0; c < CONTRACTS; c += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          writeContract(store, `m${c + k}`, LENGTH, (i) => ({ path: `/items/i${i % 10}.text`, text: `item ${i}` })),
        ),
      );
    }
    return { commits: CONTRACTS * LENGTH };
  });
  if (generatedMs !== null)
    r.add({ bench: BENCH, case: "generate the data dir (once, cached)", value: generatedMs / 1000, unit: "s" });
  const note = `${CONTRACTS.toLocaleString("en")} × ${LENGTH} commits, ${(dirBytes(dataDir) / MiB).toFixed(0)} MiB on disk`;

  const hub = await startHub(dataDir);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    r.add({ bench: BENCH, case: "hub RSS idle after start", value: hub.rss() / MiB, unit: "MiB", note });
    for (const pass of ["first", "second"]) {
      const started = performance.now();
      await touchAll(hub.url);
      const seconds = (performance.now() - started) / 1000;
      r.add({
        bench: BENCH,
        case: `hub RSS after the ${pass} read of every contract`,
        value: hub.rss() / MiB,
        unit: "MiB",
        note: "state cache: 1,000 contracts (LRU)",
      });
      r.add({
        bench: BENCH,
        case: `${pass} pass: state read + log page per contract`,
        value: CONTRACTS / seconds,
        unit: "contracts/s",
        note: pass === "first" ? "each state replayed from the store" : "replayed again past the LRU",
      });
    }
  } finally {
    await hub.stop();
  }
}

/** GET state and the first log page of every contract, CONCURRENCY at a time. */
async function touchAll(url: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let c = next++; c < CONTRACTS; c = next++) {
      for (const path of ["state", "log?limit=10"]) {
        const res = await fetch(`${url}/contracts/m${c}/${path}`);
        if (!res.ok) throw new Error(`m${c}/${path} answered ${res.status}`);
        await res.arrayBuffer();
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}
