/**
 * Push ingest on PostgreSQL against SQLite, in the same run (docs/deploy.md): 20 batches ×
 * 500 signed commits, at the store (appendCommits of validated commits: the database's
 * share) and through the hub (push: validation, signature checks, storage). "Two instances"
 * are two stores/hubs with their own pools on one database, each pushing its own contract
 * concurrently (10 batches each): one contract's batches are a chain and cannot overlap.
 * Both instances share this process's one CPU thread, so the hub-level two-instance figure
 * is a floor; separate processes add CPU for validation, the database is the shared part.
 * Run: npx tsx bench/run.ts pg   (PostgreSQL: HUB_BENCH_DATABASE_URL, default as the tests)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { WireCommit } from "../src/contract/Commit.js";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import { Hub } from "../src/hub/Hub.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import type { Store } from "../src/store/Store.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { Writer } from "../test/support/pgHubs.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "pg";
const BATCHES = 20;
const BATCH = 500;
const RUNS = 3;
const ADMIN_URL = process.env.HUB_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const writer = new Writer();

/** A contract's genesis and 20 batches of 500 signed commits after it. */
function workload(id: string, batches: number): { genesis: WireCommit; batches: WireCommit[][] } {
  const genesis = writer.genesis(id);
  const all = writer.chain(id, genesis.hash, batches * BATCH, "b");
  return { genesis, batches: Array.from({ length: batches }, (_, i) => all.slice(i * BATCH, (i + 1) * BATCH)) };
}

/** The stored form of a workload (what the hub would append after validation). */
function stored(w: ReturnType<typeof workload>): StoredCommit[] {
  return [w.genesis, ...w.batches.flat()].map((c, index) => ({
    index,
    hash: c.hash,
    parent: c.parent,
    data: c.data,
    signatures: c.head.signatures,
    timestamp: 1_700_000_000,
    signers: [writer.key],
  }));
}

/** Appends `commits` (genesis first) in batches of BATCH at the store level; returns elapsed ms of the batches. */
async function storeIngest(store: Store, id: string, commits: StoredCommit[]): Promise<number> {
  const contract = { owner: writer.key, createdAt: 1_700_000_000, private: false };
  await store.appendCommits(id, null, commits.slice(0, 1), { contract });
  const start = performance.now();
  for (let i = 1; i < commits.length; i += BATCH) {
    await store.appendCommits(id, commits[i - 1]!.hash, commits.slice(i, i + BATCH));
  }
  return performance.now() - start;
}

/** Pushes the workload through `hub`; returns elapsed ms of the batches. */
async function hubIngest(hub: Hub, id: string, w: ReturnType<typeof workload>): Promise<number> {
  await hub.push(writer.caller, id, { commits: [w.genesis] });
  const start = performance.now();
  for (const commits of w.batches) await hub.push(writer.caller, id, { commits });
  return performance.now() - start;
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** The median of `runs` results of `fn` (the machine is shared; single runs vary a lot). */
async function median(runs: number, fn: (run: number) => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await fn(i));
  values.sort((x, y) => x - y);
  return values[Math.floor(values.length / 2)]!;
}

export default async function pgBench(r: Reporter): Promise<void> {
  const name = `ch_bench_${process.pid}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), "pg-bench-"));
  await admin(`CREATE DATABASE ${name}`);
  const open: { close(): Promise<void> }[] = [];
  let schemas = 0;
  // Every run gets empty storage: a fresh schema or directory (same contract ids, same workload).
  const pgStore = async (schema = `s${++schemas}`) => {
    const s = await PostgresStore.open({ connectionString: url.toString(), schema, poolSize: 4 });
    open.push(s);
    return s;
  };
  const sqliteStore = async () => {
    const s = await SqliteStore.open({ dataDir: join(dir, `s${++schemas}`) });
    open.push(s);
    return s;
  };
  const total = BATCHES * BATCH;
  const rate = (ms: number) => (total / ms) * 1000;
  const note = `${BATCHES} × ${BATCH} signed commits, median of ${RUNS}`;
  const note2 = `2 contracts × ${BATCHES / 2} × ${BATCH} concurrently, median of ${RUNS}`;
  const add = (c: string, value: number, n = note) =>
    r.add({ bench: BENCH, case: c, value, unit: "commits/s", note: n });
  try {
    // ---- store level: the database's share of ingest ----
    const one = stored(workload("c_one", BATCHES));
    const halves = [stored(workload("c_a", BATCHES / 2)), stored(workload("c_b", BATCHES / 2))];
    await storeIngest(await pgStore(), "c_one", one.slice(0, 1 + 2 * BATCH)); // warm-up
    const sqliteRate = await median(RUNS, async () => rate(await storeIngest(await sqliteStore(), "c_one", one)));
    add("store ingest, SQLite", sqliteRate);
    const pgRate = await median(RUNS, async () => rate(await storeIngest(await pgStore(), "c_one", one)));
    add("store ingest, PostgreSQL, 1 instance", pgRate);
    const pg2Rate = await median(RUNS, async () => {
      const schema = `s${++schemas}`;
      const [s1, s2] = [await pgStore(schema), await pgStore(schema)];
      const started = performance.now();
      await Promise.all([storeIngest(s1, "c_a", halves[0]!), storeIngest(s2, "c_b", halves[1]!)]);
      return rate(performance.now() - started);
    });
    add("store ingest, PostgreSQL, 2 instances", pg2Rate, note2);
    r.add({
      bench: BENCH,
      case: "store ingest, PostgreSQL 1 instance / SQLite",
      value: pgRate / sqliteRate,
      unit: "ratio",
    });

    // ---- hub level: push with validation ----
    const w = workload("h_one", BATCHES);
    const [wa, wb] = [workload("h_a", BATCHES / 2), workload("h_b", BATCHES / 2)];
    const hubSqlite = await median(RUNS, async () =>
      rate(await hubIngest(new Hub({ store: await sqliteStore() }), "h_one", w)),
    );
    add("hub push ingest, SQLite", hubSqlite);
    const hubPg = await median(RUNS, async () =>
      rate(await hubIngest(new Hub({ store: await pgStore() }), "h_one", w)),
    );
    add("hub push ingest, PostgreSQL, 1 instance", hubPg);
    const hubPg2 = await median(RUNS, async () => {
      const schema = `s${++schemas}`;
      const [h1, h2] = [new Hub({ store: await pgStore(schema) }), new Hub({ store: await pgStore(schema) })];
      const started = performance.now();
      await Promise.all([hubIngest(h1, "h_a", wa), hubIngest(h2, "h_b", wb)]);
      return rate(performance.now() - started);
    });
    add("hub push ingest, PostgreSQL, 2 instances in one process", hubPg2, `${note2}, one CPU thread`);
    r.add({
      bench: BENCH,
      case: "hub push ingest, PostgreSQL 1 instance / SQLite",
      value: hubPg / hubSqlite,
      unit: "ratio",
    });
  } finally {
    for (const x of open.reverse()) await x.close().catch(() => {});
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  }
}
