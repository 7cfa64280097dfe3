/**
 * Asset throughput (docs/assets.md): SEND+RECV pairs per second through the Hub on SQLite
 * (WAL, synchronous=FULL), each operation a fields-form submitCommit validated by the ledger
 * and written with its effects in the commit's transaction. One pair of contracts in
 * sequence, then 16 pairs concurrently (group commit shares transactions between them).
 * Run: npx tsx bench/run.ts assets
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPair } from "../src/contract/keys.js";
import type { Hub } from "../src/hub/Hub.js";
import type { Caller } from "../src/hub/HubApi.js";
import { openSqliteHub } from "../test/support/openSqliteHub.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "assets";
const key = generateKeyPair().publicKey.toString("hex");
const caller: Caller = { identity: key, accessKey: key };

async function submit(hub: Hub, id: string, method: string, value: unknown): Promise<string> {
  return (await hub.submitCommit(caller, id, { contract_id: id, method, value })).result.commit_hash;
}

/** Runs SEND+RECV pairs on `lanes` contract pairs for `ms`; returns pairs per second. */
async function pairsPerSecond(hub: Hub, lanes: number, ms: number): Promise<number> {
  const tag = Math.random().toString(36).slice(2, 8);
  const pairs = Array.from({ length: lanes }, (_, i) => [`i${tag}${i}`, `h${tag}${i}`] as const);
  for (const [from, to] of pairs) {
    for (const id of [from, to]) await hub.createContract(caller, { contract_id: id, model: null, rules: [] });
    await submit(hub, from, "create", { asset_id: "t", quantity: 1_000_000_000, divisibility: 1 });
  }
  let done = 0;
  const start = performance.now();
  await Promise.all(
    pairs.map(async ([from, to]) => {
      while (performance.now() - start < ms) {
        const send = await submit(hub, from, "send", { asset_id: "t", to_contract: to, amount: 1 });
        await submit(hub, to, "recv", { send_commit_id: send });
        done++;
      }
    }),
  );
  return (done / (performance.now() - start)) * 1000;
}

export default async function assetsBench(r: Reporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-assets-"));
  const hub = await openSqliteHub({ dataDir: dir });
  try {
    await pairsPerSecond(hub, 1, 300); // warm-up
    r.add({
      bench: BENCH,
      case: "SEND+RECV pairs, 1 lane",
      value: await pairsPerSecond(hub, 1, 3000),
      unit: "pairs/s",
    });
    r.add({
      bench: BENCH,
      case: "SEND+RECV pairs, 16 lanes",
      value: await pairsPerSecond(hub, 16, 3000),
      unit: "pairs/s",
      note: "16 contract pairs concurrently; group commit",
    });
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
