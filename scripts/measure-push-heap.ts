/**
 * What a push of N signed commits (default 10,000) keeps alive until its append, and what its
 * young-generation collections (scavenges) cost the event loop (docs/storage.md, "What a push
 * holds until its append"). A real hub in this process (SQLite in a temp dir, REST on
 * loopback), the signed escrow-like loop of bench/hub.bench.ts; each push body is built
 * before anything is measured.
 *
 * Per run, after a warm-up push of 1,000:
 * - a timed push: its GC pauses by kind (PerformanceObserver), the event loop's worst delay
 *   (monitorEventLoopDelay, 1 ms resolution), its wall time, and from the collector's own
 *   trace (--trace-gc-nvp) the main thread's scavenges: how many, the bytes they copied
 *   (promoted + survived in new space, the work a scavenge's pause is made of), their pauses;
 * - a heap push: heap used after a forced full GC before it and as its append begins (a hook
 *   on the store's appendCommits), per commit. PUSH_HEAP_SNAPSHOT=<file> writes heap snapshots
 *   at both points (<file>.before and <file>).
 * Wall times are the machine's: on 2 shared cores the pauses follow the load more than the heap.
 *
 * Usage: node --import tsx scripts/measure-push-heap.ts [commits] [runs]  (one JSON line a run;
 * it runs itself again with --expose-gc and the trace)
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import { signRequest } from "../src/auth/signRequest.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import { genesisData } from "../src/contract/engine.js";
import { privateKeyFromSeed } from "../src/contract/keys.js";
import { storeWith } from "../test/support/liveTestApp.js";
import { type Principal, testApp } from "../test/support/testApps.js";

const N = Number(process.argv[2] ?? 10_000);
if (process.env.PUSH_HEAP_CHILD !== "1") {
  await parent();
  process.exit(0);
}
const RUNS = Number(process.argv[3] ?? 1);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const MODEL = `model Loop {
  initial idle
  idle -> busy [+DEPOSIT +signed_by(/users/buyer.id)]
  busy -> idle [+RELEASE +signed_by(/users/buyer.id)]
}`;

function opsAt(i: number): Operation[] {
  return [
    { method: "post", path: "/notes/last.text", value: `step ${i}: shipped with tracking 1Z999AA1012345678${i % 10}` },
    { method: "action", value: i % 2 === 0 ? "DEPOSIT" : "RELEASE" },
  ];
}

/** The push bodies (genesis alone, then `n` signed steps) of a new contract owned by `p`. */
function bodies(p: Principal, n: number): { id: string; genesis: string; steps: string } {
  const id = `c_heap_${randomBytes(6).toString("hex")}`;
  const key = p.key;
  const g = buildWireCommit(
    id,
    null,
    genesisData({ model: MODEL, rules: [], owner: `ed25519:${key}`, state: { "/users/buyer.id": key } }),
  );
  const signer = privateKeyFromSeed(p.identity.seed);
  const commits: WireCommit[] = [];
  let parent = g.hash;
  for (let i = 0; i < n; i++) {
    const c = buildWireCommit(id, parent, opsAt(i), [{ key: signer, as: "/users/buyer.id" }]);
    commits.push(c);
    parent = c.hash;
  }
  return { id, genesis: JSON.stringify({ commits: [g] }), steps: JSON.stringify({ commits }) };
}

let onAppend: (() => void) | null = null;
/** A line by which the parent process finds the timed push among the collector's lines. */
function mark(what: string): void {
  if (process.env.PUSH_HEAP_MARKS) console.log(`MARK ${performance.now().toFixed(1)} ${what}`);
}
const t = await testApp("rest", {
  workBudgetMs: 0,
  wrapStore: (store) =>
    storeWith(store, {
      appendCommits:
        (own) =>
        (...args) => {
          onAppend?.();
          return own(...args);
        },
    }),
});
const url = await t.app.listen({ host: "127.0.0.1", port: 0 });

async function push(p: Principal, id: string, body: string): Promise<number> {
  const path = `/contracts/${id}/push`;
  const headers = signRequest(p.access.seed, { method: "POST", url: path, body });
  const started = performance.now();
  const res = await fetch(url + path, {
    method: "POST",
    body,
    headers: { ...headers, "content-type": "application/json" },
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`push: ${res.status} ${text.slice(0, 300)}`);
  return performance.now() - started;
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
}

const KINDS: Record<number, string> = { 1: "minor", 2: "major", 4: "incremental", 8: "weakcb" };
function round(x: number): number {
  return Math.round(x * 10) / 10;
}

try {
  const warm = await t.principal();
  const w = bodies(warm, 1_000);
  await push(warm, w.id, w.genesis);
  await push(warm, w.id, w.steps);

  for (let run = 0; run < RUNS; run++) {
    // Timed push: no forced collection anywhere in it.
    const a = await t.principal();
    const timed = bodies(a, N);
    await push(a, timed.id, timed.genesis);
    gc();
    const pauses = new Map<string, number[]>();
    const obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = KINDS[(e as unknown as { detail: { kind: number } }).detail.kind] ?? "other";
        const arr = pauses.get(kind) ?? [];
        arr.push(e.duration);
        pauses.set(kind, arr);
      }
    });
    obs.observe({ entryTypes: ["gc"] });
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    mark("push start");
    const pushMs = await push(a, timed.id, timed.steps);
    mark("push end");
    delay.disable();
    await new Promise((r) => setTimeout(r, 50));
    obs.disconnect();

    // Heap push: a full collection before it and as its append begins.
    const b = await t.principal();
    const heap = bodies(b, N);
    await push(b, heap.id, heap.genesis);
    gc();
    const before = process.memoryUsage().heapUsed;
    const snapshot = process.env.PUSH_HEAP_SNAPSHOT;
    if (snapshot) writeHeapSnapshot(`${snapshot}.before`);
    let atAppend = 0;
    onAppend = () => {
      gc();
      atAppend = process.memoryUsage().heapUsed;
      if (snapshot) writeHeapSnapshot(snapshot);
    };
    await push(b, heap.id, heap.steps);
    onAppend = null;

    const minor = pauses.get("minor") ?? [];
    const all = [...pauses.values()].flat();
    console.log(
      JSON.stringify({
        commits: N,
        bodyKiB: Math.round(heap.steps.length / 1024),
        retainedBytesPerCommit: Math.round((atAppend - before) / N),
        pushMs: Math.round(pushMs),
        minorCount: minor.length,
        minorMaxMs: round(Math.max(0, ...minor)),
        minorP99Ms: round(quantile(minor, 0.99)),
        minorSumMs: Math.round(minor.reduce((s, x) => s + x, 0)),
        gcMaxMs: round(Math.max(0, ...all)),
        gcByKind: Object.fromEntries([...pauses].map(([k, v]) => [k, { n: v.length, maxMs: round(Math.max(...v)) }])),
        loopDelayMaxMs: round(delay.max / 1e6),
        loopDelayP99Ms: round(delay.percentile(99) / 1e6),
        load: loadavg()[0]!.toFixed(2),
      }),
    );
  }
} finally {
  await t.close();
}

/**
 * Runs this script again with the collector's trace (--trace-gc-nvp) and adds to each run's
 * line what the main thread's scavenges did during the timed push: how many, the bytes they
 * copied (promoted + kept in new space: the work a scavenge's pause is made of), their pauses.
 */
async function parent(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "push-heap-"));
  const log = join(dir, "trace.txt");
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--trace-gc-nvp", "--import", "tsx", new URL(import.meta.url).pathname, ...process.argv.slice(2)],
    // To a file: the collector's lines and the script's are then written in the order they happen.
    {
      env: { ...process.env, PUSH_HEAP_CHILD: "1", PUSH_HEAP_MARKS: "1" },
      stdio: ["ignore", openSync(log, "w"), "inherit"],
    },
  );
  await new Promise((resolve) => child.once("exit", resolve));
  const lines = readFileSync(log, "utf8").split("\n");
  rmSync(dir, { recursive: true, force: true });
  const gcLine = /^\[\d+:(0x[0-9a-f]+)\]\s+([\d.]+) ms: pause=([\d.]+) .*gc=(\w+)/;
  // The main isolate is the one with the biggest heap (the workers' are a few MB).
  const biggest = new Map<string, number>();
  for (const l of lines) {
    const m = gcLine.exec(l);
    const size = /total_size_before=(\d+)/.exec(l);
    if (m && size) biggest.set(m[1]!, Math.max(biggest.get(m[1]!) ?? 0, Number(size[1])));
  }
  const main = [...biggest].sort((a, b) => b[1] - a[1])[0]?.[0];
  // By time, not by line order: the collector's lines may reach the file after later marks.
  // Its times count from the isolate's start, the marks' from the process's: a few ms apart.
  const windows: { from: number; to: number }[] = [];
  for (const l of lines) {
    const m = /^MARK ([\d.]+) push (start|end)$/.exec(l);
    if (m?.[2] === "start") windows.push({ from: Number(m[1]), to: Number.POSITIVE_INFINITY });
    else if (m) windows.at(-1)!.to = Number(m[1]);
  }
  const runs = windows.map(() => ({ n: 0, copied: 0, pauses: [] as number[] }));
  for (const l of lines) {
    const m = gcLine.exec(l);
    if (!m || m[1] !== main || m[4] !== "s") continue;
    const at = windows.findIndex((w) => Number(m[2]) >= w.from && Number(m[2]) <= w.to);
    if (at < 0) continue;
    const field = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(l)?.[1] ?? 0);
    runs[at]!.n++;
    runs[at]!.copied += field("promoted") + field("new_space_survived");
    runs[at]!.pauses.push(Number(m[3]));
  }
  for (const l of lines) {
    if (!l.startsWith("{")) continue;
    const r = runs.shift() ?? { n: 0, copied: 0, pauses: [] };
    const row = JSON.parse(l) as Record<string, unknown>;
    row.scavenges = r.n;
    row.scavengeCopiedMiB = round(r.copied / 2 ** 20);
    row.scavengeMaxMs = round(Math.max(0, ...r.pauses));
    row.scavengeP99Ms = round(quantile(r.pauses, 0.99));
    console.log(JSON.stringify(row));
  }
}
