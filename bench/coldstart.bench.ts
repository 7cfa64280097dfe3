/**
 * Cold start with about 1 GB of data (docs/benchmarks.md, reliability section): a real
 * `contract-hub start` over a cached SQLite data directory holding one large contract
 * (100,000 commits) and 230,000 commits of padding in 230 other contracts. Measures
 * spawn to the first successful `GET /health`, then the first state read of the large
 * contract (its state snapshot, stored as a hub stores one every 1000 commits, plus the
 * commits after it: none here; docs/storage.md) and a second, cached read. Three starts; the median is reported. The OS page cache is warm after the first
 * generation (dropping it needs root on a shared machine), so these are warm-disk figures.
 * Run: npx tsx bench/run.ts coldstart
 */
import { Hub, SNAPSHOT_EVERY } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { startHub } from "../test/support/hubProcess.js";
import { cachedDataDir, dirBytes, writeContract } from "./benchData.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "coldstart";
const BIG = "big";
const BIG_LENGTH = 100_000;
const PAD_CONTRACTS = 230;
const PAD_LENGTH = 1000;
/** About 2.4 KB per padding commit, one per 4 KiB SQLite page: 230,000 of them make about 1 GB with the big contract. */
const PAD_TEXT = "x".repeat(2300);

export default async function coldStart(r: Reporter): Promise<void> {
  // v3: schema 5 (wire bytes, state snapshots); v2 directories are left for hubs of schema 4.
  const { dataDir, generatedMs } = await cachedDataDir("coldstart-1g-v3", async (store) => {
    await writeContract(store, BIG, BIG_LENGTH, (i) => ({ path: `/notes/n${i % 1000}.text`, text: `note ${i}` }));
    // The snapshot a hub would have stored when the contract reached 100,000 commits: the
    // first read of a hub on this store replays the log and stores it (closing the store flushes it).
    const hub = new Hub({ store, snapshotEvery: SNAPSHOT_EVERY });
    await hub.getState(ANONYMOUS, BIG);
    await hub.close();
    for (let c = 0; c < PAD_CONTRACTS; c++)
      await writeContract(store, `pad${c}`, PAD_LENGTH, (i) => ({
        path: `/pad/p${i % 100}.text`,
        text: `${i}${PAD_TEXT}`,
      }));
    return { commits: BIG_LENGTH + PAD_CONTRACTS * PAD_LENGTH };
  });
  if (generatedMs !== null)
    r.add({ bench: BENCH, case: "generate the data dir (once, cached)", value: generatedMs / 1000, unit: "s" });
  const bytes = dirBytes(dataDir);
  const size = `${(bytes / 2 ** 30).toFixed(2)} GiB, ${BIG_LENGTH + PAD_CONTRACTS * PAD_LENGTH} commits`;

  const ready: number[] = [];
  const firstRead: number[] = [];
  const warmRead: number[] = [];
  const rss: number[] = [];
  for (let run = 0; run < 3; run++) {
    const hub = await startHub(dataDir);
    try {
      ready.push(hub.readyMs);
      let started = performance.now();
      const state = await fetch(`${hub.url}/contracts/${BIG}/state`);
      if (!state.ok) throw new Error(`state read answered ${state.status}`);
      await state.json();
      firstRead.push(performance.now() - started);
      started = performance.now();
      await (await fetch(`${hub.url}/contracts/${BIG}/state`)).json();
      warmRead.push(performance.now() - started);
      rss.push(hub.rss());
    } finally {
      await hub.stop();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  r.add({ bench: BENCH, case: "start → first GET /health 200", value: median(ready), unit: "ms", note: size });
  r.add({
    bench: BENCH,
    case: `first state read of a ${BIG_LENGTH.toLocaleString("en")}-commit contract (state snapshot + tail)`,
    value: median(firstRead),
    unit: "ms",
  });
  r.add({ bench: BENCH, case: "second state read (cached state)", value: median(warmRead), unit: "ms" });
  r.add({
    bench: BENCH,
    case: "hub RSS after the large contract's state read",
    value: median(rss) / 2 ** 20,
    unit: "MiB",
  });
}
