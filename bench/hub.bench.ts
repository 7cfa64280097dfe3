/**
 * The hub over real HTTP on loopback (issue 4, performance): push ingest against raw
 * ed25519 verify measured in the same run, single-commit submits from 32 concurrent clients
 * (throughput, p50/p99 latency at the client and inside the hub, from its request log, and
 * the CPU the load generator takes from the same cores; then the same clients paced at half
 * that rate, for the latency below saturation), and a streamed pull of a
 * 100,000-commit contract (rate and the server's peak RSS against the response size).
 *
 * The hub runs as a child process started exactly as an operator starts it
 * (`node bin/contract-hub.js start`, SQLite in a temp dir, default logging to a file,
 * default rate limit), so its event loop, heap and RSS are its own and the load generator
 * (this process: commit building, autocannon) cannot stall it or inflate its memory. Both
 * still share the machine's cores, which the rows say. Its worker threads write their role and
 * thread id to a file the bench names (HUB_THREAD_ROLES_FILE, src/lib/threadRoles.ts), so its
 * CPU time per commit is split by thread: event loop, verification, SQLite writer, other
 * workers, and the rest (V8's and libuv's helpers).
 *
 * Run: npx tsx bench/run.ts hub  (HUB_BENCH_PROFILE=<dir> writes the hub's CPU profiles there;
 * HUB_BENCH_QUICK=1 runs smaller sizes; HUB_BENCH_ONLY=push,single,pull runs some parts;
 * HUB_BENCH_NODE_ARGS / HUB_BENCH_PULL_NODE_ARGS pass node flags to the hub process started
 * for ingest / for the pull, e.g. "--max-old-space-size=64" to show the pull needs no heap;
 * HUB_BENCH_KEEP=1 keeps the hub's data directory, its request log included, and names it;
 * HUB_BENCH_THREADS=1 prints each of the hub's threads' CPU time per operation, with its role;
 * HUB_BENCH_BIN=<path to another tree's bin/contract-hub.js> runs that build's hub under the
 * same load, for before/after runs of one bench).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, verify as cryptoVerify, type KeyObject, randomBytes } from "node:crypto";
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { AUTH_HEADERS, requestSigningText } from "../src/auth/signingText.js";
import { registrationBody } from "../src/auth/signRequest.js";
import { HubClient } from "../src/client/HubClient.js";
import { pushInBatches } from "../src/client/sync.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import { genesisData } from "../src/contract/engine.js";
import {
  generateKeyPair,
  PublicKeyCache,
  privateKeyFromSeed,
  type RawKeyPair,
  sign,
  verifyAsync,
} from "../src/contract/keys.js";
import { readThreadRoles, THREAD_ROLES_ENV } from "../src/lib/threadRoles.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "hub";
const QUICK = process.env.HUB_BENCH_QUICK === "1";
/** HUB_BENCH_ONLY=push,single,pull picks parts (for profiling one at a time). */
const ONLY = (part: string) => !process.env.HUB_BENCH_ONLY || process.env.HUB_BENCH_ONLY.split(",").includes(part);
const BIN = process.env.HUB_BENCH_BIN || new URL("../bin/contract-hub.js", import.meta.url).pathname;
const MODEL = `model Loop {
  initial idle
  idle -> busy [+DEPOSIT +signed_by(/users/buyer.id)]
  busy -> idle [+RELEASE +signed_by(/users/buyer.id)]
}`;
const RULE = "always(eventually(idle))";
const SHARED = `hub and load generator share ${cpus().length} cores`;

// ---- the hub process ------------------------------------------------------------------

interface HubProcess {
  url: string;
  pid: number;
  /** Its stderr: pino's JSON lines, one per answered request (`ms` from onRequest to onResponse). */
  logFile: string;
  /** Where its worker threads write their role and thread id as they start (src/lib/threadRoles.ts). */
  threadsFile: string;
  stop(): Promise<void>;
}

/** Starts `contract-hub start` on a free port over `dataDir`; resolves once it printed its address. */
async function startHub(dataDir: string, profileName?: string): Promise<HubProcess> {
  const flags = profileName === "pull" ? process.env.HUB_BENCH_PULL_NODE_ARGS : process.env.HUB_BENCH_NODE_ARGS;
  const nodeArgs = (flags ?? "").split(" ").filter(Boolean);
  const profileDir = process.env.HUB_BENCH_PROFILE;
  if (profileDir && profileName)
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}.cpuprofile`);
  const logFile = join(dataDir, "hub.log");
  const log = openSync(logFile, "a");
  // One file per hub process: the pull hub's threads are not the ingest hub's.
  const threadsFile = join(dataDir, `threads-${profileName ?? "hub"}-${Date.now()}.jsonl`);
  // The pull hub serves six long anonymous pulls in a row: no work budget, or the later ones
  // would measure its 429 (docs/security.md), not the pull.
  const budget = profileName === "pull" ? ["--work-budget", "0"] : [];
  // The bench registers more identities from this address (34) than a hub admits in an
  // hour by default (20, docs/security.md): no registration limit. Given as the variable, which
  // a build from before the limit (HUB_BENCH_BIN) ignores, where it would refuse the flag.
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, BIN, "start", "--port", "0", "--no-rpc", "--data-dir", dataDir, ...budget],
    {
      stdio: ["ignore", "pipe", log],
      env: { ...process.env, HUB_REGISTRATION_LIMIT: "0", [THREAD_ROLES_ENV]: threadsFile },
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /REST\s+(http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`hub exited with ${code} before listening; see ${dataDir}/hub.log`)));
  });
  return {
    url,
    pid: child.pid!,
    logFile,
    threadsFile,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Resident set size of a process in bytes (from /proc, Linux). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** CPU time (user + system) a process has used, in ms (from /proc, Linux; 10 ms ticks). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (ms) of each thread of a process, keyed by its thread id (Linux). */
function threadCpuOf(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * The hub's CPU time per operation by thread role, in µs. Every thread is "node" in /proc: the
 * roles come from the file the hub's worker threads announce themselves in. `rest` is the
 * process's time less the others': V8's helpers (GC, compilers), libuv's pool, and any worker
 * that ended during the run (its thread is gone from /proc, its time is still the process's).
 */
interface ThreadSplit {
  eventLoop: number;
  verify: number;
  writer: number;
  /** WorkerPool (heavy), WASM predicate and instrumenting threads. */
  other: number;
  rest: number;
}

/**
 * The hub's CPU time per operation over `fn`: robust to other load on a shared machine.
 * `split` divides it by thread (null when the hub named none of its threads: a build from
 * before the roles file, through HUB_BENCH_BIN, or no /proc).
 */
async function hubCpu<T>(
  hub: HubProcess,
  ops: number,
  fn: () => Promise<T>,
): Promise<{ value: T; usPerOp: number; mainUsPerOp: number; split: ThreadSplit | null }> {
  const before = cpuMsOf(hub.pid);
  const threadsBefore = threadCpuOf(hub.pid);
  const value = await fn();
  const threadsAfter = threadCpuOf(hub.pid);
  const totalMs = cpuMsOf(hub.pid) - before;
  // Read after the run: workers start on first use, and a lost one is replaced.
  const roleOf = new Map<number, string>();
  for (const [role, tids] of readThreadRoles(hub.threadsFile)) for (const tid of tids) roleOf.set(tid, role);
  const ms = { eventLoop: 0, verify: 0, writer: 0, other: 0 };
  for (const [tid, after] of threadsAfter) {
    const d = after - (threadsBefore.get(tid) ?? 0);
    const role = tid === hub.pid ? "eventLoop" : roleOf.get(tid);
    if (role === "eventLoop" || role === "verify" || role === "writer") ms[role] += d;
    else if (role !== undefined) ms.other += d;
    if (process.env.HUB_BENCH_THREADS === "1" && d > 0)
      console.error(`  thread ${tid} (${role ?? "no role"}): ${((d * 1000) / ops).toFixed(1)} µs/op`);
  }
  const per = (m: number) => (m * 1000) / ops;
  const split =
    roleOf.size === 0
      ? null
      : {
          eventLoop: per(ms.eventLoop),
          verify: per(ms.verify),
          writer: per(ms.writer),
          other: per(ms.other),
          rest: per(totalMs - ms.eventLoop - ms.verify - ms.writer - ms.other),
        };
  return { value, usPerOp: per(totalMs), mainUsPerOp: per(ms.eventLoop), split };
}

/**
 * One row per thread role of `split` after the "(all threads)" row of `prefix` (per `what`:
 * commit or request); the event loop's too unless the caller reports it already.
 */
function addSplit(r: Reporter, prefix: string, what: string, split: ThreadSplit | null, withEventLoop = true): void {
  if (split === null) {
    process.stderr.write(`  hub · ${prefix}: no split by thread (the hub named none of its threads)\n`);
    return;
  }
  const rows: [string, number, string?][] = [
    ["on the verification threads", split.verify],
    ["on the SQLite writer's thread", split.writer],
    ["on other worker threads", split.other, "the heavy-work pool, WASM predicates, instrumenting"],
    ["on no worker's thread (V8's and libuv's helpers)", split.rest, "the process's time less the threads above"],
  ];
  if (withEventLoop) rows.unshift(["on the event loop's thread", split.eventLoop]);
  for (const [where, value, note] of rows)
    r.add({
      bench: BENCH,
      case: `${prefix}: hub CPU time per ${what} ${where}`,
      value,
      unit: "µs",
      ...(note ? { note } : {}),
    });
}

// ---- clients ----------------------------------------------------------------------------

/** A party: identity key (owns the contract, signs commits at /users/buyer.id) and access key (signs requests). */
interface Party {
  identity: RawKeyPair;
  identityKey: KeyObject;
  access: RawKeyPair;
  accessKey: KeyObject;
  accessHex: string;
}

function newParty(): Party {
  const identity = generateKeyPair();
  const access = generateKeyPair();
  return {
    identity,
    identityKey: privateKeyFromSeed(identity.seed),
    access,
    accessKey: privateKeyFromSeed(access.seed),
    accessHex: access.publicKey.toString("hex"),
  };
}

/** X-Hub-* headers (PROTOCOL.md §7), signed with a cached KeyObject. */
function authHeaders(p: Party, method: string, path: string, body: string): Record<string, string> {
  const timestamp = String(Date.now());
  const nonce = randomBytes(16).toString("hex");
  const digest = createHash("sha256").update(body).digest("hex");
  const text = requestSigningText(method, path, timestamp, nonce, digest);
  return {
    "content-type": "application/json",
    [AUTH_HEADERS.key]: p.accessHex,
    [AUTH_HEADERS.timestamp]: timestamp,
    [AUTH_HEADERS.nonce]: nonce,
    [AUTH_HEADERS.signature]: sign(p.accessKey, Buffer.from(text, "utf8")).toString("hex"),
  };
}

/** One keep-alive-free HTTP request; resolves with status and body text. */
function send(
  base: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function expectOk(
  p: Promise<{ status: number; text: string }>,
  what: string,
): Promise<{ status: number; text: string }> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return r;
}

async function register(base: string, p: Party): Promise<void> {
  await expectOk(
    send(base, "POST", "/register", JSON.stringify(registrationBody(p.identity.seed, p.access.seed)), {
      "content-type": "application/json",
    }),
    "register",
  );
}

async function push(base: string, p: Party, id: string, body: string): Promise<void> {
  const path = `/contracts/${id}/push`;
  await expectOk(send(base, "POST", path, body, authHeaders(p, "POST", path, body)), "push");
}

/** The genesis of an escrow-like loop owned by `p`, whose key signs at /users/buyer.id. */
function genesisOf(p: Party, id: string): WireCommit {
  const key = p.identity.publicKey.toString("hex");
  return buildWireCommit(
    id,
    null,
    genesisData({ model: MODEL, rules: [RULE], owner: `ed25519:${key}`, state: { "/users/buyer.id": key } }),
  );
}

/** The i-th step of the loop (alternating DEPOSIT / RELEASE, each with a post). */
function opsAt(i: number): Operation[] {
  return [
    { method: "post", path: "/notes/last.text", value: `step ${i}: shipped with tracking 1Z999AA1012345678${i % 10}` },
    { method: "action", value: i % 2 === 0 ? "DEPOSIT" : "RELEASE" },
  ];
}

/** `n` commits signed by `p` chained from `parent`, for step numbers from `first`. */
function chain(p: Party, id: string, parent: string, first: number, n: number): WireCommit[] {
  const out: WireCommit[] = [];
  for (let i = 0; i < n; i++) {
    const c = buildWireCommit(id, parent, opsAt(first + i), [{ key: p.identityKey, as: "/users/buyer.id" }]);
    out.push(c);
    parent = c.hash;
  }
  return out;
}

const contractId = (tag: string) => `c_bench_${tag}_${randomBytes(6).toString("hex")}`;

// ---- raw verify in the same run -------------------------------------------------------

/** A signed commit hash with its key and signature: what the raw verify measurements check. */
interface VerifySample {
  key: KeyObject;
  hash: Buffer;
  sig: Buffer;
}

function verifySample(): VerifySample {
  const p = newParty();
  const c = chain(p, contractId("raw"), "ab".repeat(32), 0, 1)[0]!;
  return {
    key: new PublicKeyCache().get(p.identity.publicKey),
    hash: Buffer.from(c.hash, "hex"),
    sig: Buffer.from(Object.values(c.head.signatures)[0]!, "hex"),
  };
}

/** Synchronous verifies for 1.5 s in this process: their rate and CPU time each. */
function rawSyncVerify({ key, hash, sig }: VerifySample): { sync: number; cpuPerVerify: number } {
  for (let i = 0; i < 2000; i++) cryptoVerify(null, hash, key, sig);
  let n = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < 1500) {
    cryptoVerify(null, hash, key, sig);
    n++;
  }
  const sync = (n / (performance.now() - start)) * 1000;
  const cpu = process.cpuUsage(cpu0);
  return { sync, cpuPerVerify: (cpu.user + cpu.system) / n };
}

async function rawVerifyRates(r: Reporter): Promise<RawRates> {
  const sample = verifySample();
  const { key, hash, sig } = sample;
  const { sync, cpuPerVerify } = rawSyncVerify(sample);
  const total = 16_000;
  let started = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (started < total) {
      started++;
      await verifyAsync(key, hash, sig);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  const async16 = (total / (performance.now() - t0)) * 1000;
  r.add({
    bench: BENCH,
    case: "raw ed25519 verify, sync, cached KeyObject (this process)",
    value: sync,
    unit: "ops/s",
  });
  r.add({ bench: BENCH, case: "raw ed25519 verifyAsync, 16 in flight (this process)", value: async16, unit: "ops/s" });
  r.add({
    bench: BENCH,
    case: "raw ed25519 verify, sync: CPU time per verify (this process)",
    value: cpuPerVerify,
    unit: "µs",
  });
  return { sync, async16, cpuPerVerify, sample };
}

// ---- 1. push ingest -------------------------------------------------------------------

interface RawRates {
  sync: number;
  async16: number;
  cpuPerVerify: number;
  sample: VerifySample;
}

/**
 * Pushes `batches` × `size` signed commits to a new contract through pushInBatches, the
 * client library's push (the command line's too), with up to `window` requests on their way.
 */
async function timedPushes(hub: HubProcess, p: Party, name: string, batches: number, size: number, window: number) {
  const client = new HubClient({ url: hub.url, accessKey: p.access.seed });
  const id = contractId(name);
  const g = genesisOf(p, id);
  await client.push(id, [g]);
  const commits = chain(p, id, g.hash, 0, batches * size);
  // Each request's time, from the moment the previous batch's answer was reported.
  const times: number[] = [];
  let requests = 0;
  const counting = Object.assign(Object.create(client) as HubClient, {
    push: (contract: string, batch: WireCommit[]) => {
      requests++;
      return client.push(contract, batch);
    },
  });
  let last = performance.now();
  const start = last;
  const { usPerOp, mainUsPerOp, split } = await hubCpu(hub, batches * size, () =>
    pushInBatches(counting, id, commits, {
      batchSize: size,
      inFlight: window,
      onBatch: () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
      },
    }),
  );
  const rate = ((batches * size) / (performance.now() - start)) * 1000;
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  return {
    id,
    parent: commits.at(-1)!.hash,
    rate,
    usPerOp,
    mainUsPerOp,
    split,
    median,
    resent: requests - batches,
    bodyBytes: Buffer.byteLength(JSON.stringify({ commits: commits.slice(0, size) })),
  };
}

async function pushIngest(r: Reporter, hub: HubProcess, raw: RawRates): Promise<void> {
  const base = hub.url;
  const BATCHES = QUICK ? 6 : 20;
  const SIZE = 500;
  const p = newParty();
  await register(base, p);

  // Warm-up, on another contract: the hub's caches, and its JIT in every thread (the writer
  // thread's code runs once per push, so it needs more pushes than the event loop's to be
  // optimised; a CPU profile of a 4-push warm-up still showed V8 compiling in the timed part).
  await timedPushes(hub, p, "warm", QUICK ? 4 : 12, SIZE, 2);

  // One request at a time, then two on their way as pushInBatches sends them (the hub
  // verifies the next request's signatures while it stores the previous one).
  const one = await timedPushes(hub, p, "push-1", BATCHES, SIZE, 1);
  r.add({
    bench: BENCH,
    case: `push ${BATCHES} × ${SIZE} signed commits, one contract, one request at a time`,
    value: one.rate,
    unit: "commits/s",
    note: `one push answered every ${one.median.toFixed(0)} ms (median); ${SHARED}`,
  });
  r.add({
    bench: BENCH,
    case: "push one at a time: hub CPU time per commit (all threads)",
    value: one.usPerOp,
    unit: "µs",
  });
  addSplit(r, "push one at a time", "commit", one.split);
  const { id, parent, rate, usPerOp, mainUsPerOp, split, median, resent, bodyBytes } = await timedPushes(
    hub,
    p,
    "push",
    BATCHES,
    SIZE,
    2,
  );
  // The machine's speed drifts within a run (a verify's cost has moved by a sixth between
  // two runs a minute apart), so the push ratios use the mean of a verify measured before
  // the pushes and one measured right after them.
  const after = rawSyncVerify(raw.sample);
  const verify = {
    sync: (raw.sync + after.sync) / 2,
    cpuPerVerify: (raw.cpuPerVerify + after.cpuPerVerify) / 2,
  };
  r.add({
    bench: BENCH,
    case: `push ${BATCHES} × ${SIZE} signed commits, one contract, two requests on their way`,
    value: rate,
    unit: "commits/s",
    note: `${(bodyBytes / 1024).toFixed(0)} KiB per body; one push answered every ${median.toFixed(0)} ms (median); ${resent} sent again after overtaking; ${SHARED}`,
  });
  r.add({
    bench: BENCH,
    case: "raw ed25519 verify, sync: CPU time per verify, right after the pushes (this process)",
    value: after.cpuPerVerify,
    unit: "µs",
    note: `${raw.cpuPerVerify.toFixed(1)} µs before them; the push ratios use the mean`,
  });
  r.add({
    bench: BENCH,
    case: "push one at a time commits/s / raw sync verify/s",
    value: one.rate / verify.sync,
    unit: "ratio",
  });
  r.add({ bench: BENCH, case: "push: hub CPU time per commit (all threads)", value: usPerOp, unit: "µs" });
  r.add({
    bench: BENCH,
    case: "push: hub CPU time per commit on the event loop's thread",
    value: mainUsPerOp,
    unit: "µs",
  });
  addSplit(r, "push", "commit", split, false);
  r.add({
    bench: BENCH,
    case: "push: hub CPU time per commit / raw sync verify CPU time",
    value: usPerOp / verify.cpuPerVerify,
    unit: "ratio",
    note: "the verify itself is 1; what the hub adds per commit is the rest",
  });
  r.add({
    bench: BENCH,
    case: "push commits/s / raw sync verify/s",
    value: rate / verify.sync,
    unit: "ratio",
    note: "target ≥ 1.0 (1.5 is what two cores allow)",
  });
  r.add({ bench: BENCH, case: "push commits/s / raw verifyAsync (16) /s", value: rate / raw.async16, unit: "ratio" });
  r.add({
    bench: BENCH,
    case: "push capacity: 2 cores' commits/s by CPU time / raw sync verify/s",
    value: (2 * verify.cpuPerVerify) / usPerOp,
    unit: "ratio",
    note: `CPU-time form of the target, independent of other load: 2 / ${usPerOp.toFixed(0)} µs vs 1 / ${verify.cpuPerVerify.toFixed(0)} µs`,
  });
  await latencyByHistory(r, base, p, id, parent, BATCHES * SIZE);
}

/**
 * The "flat in history" figure: one client submits commits one at a time, first to
 * the contract the pushes just grew (10,001 commits), then to a new one (1 commit). The two
 * latency distributions should match: a single commit's cost must not grow with the log.
 */
async function latencyByHistory(
  r: Reporter,
  base: string,
  p: Party,
  longId: string,
  longHead: string,
  longLength: number,
): Promise<void> {
  const N = QUICK ? 100 : 300;
  const shortId = contractId("short");
  const g = genesisOf(p, shortId);
  await push(base, p, shortId, JSON.stringify({ commits: [g] }));
  const one = async (id: string, head: string, from: number) => {
    const ms: number[] = [];
    for (const commit of chain(p, id, head, from, N)) {
      const path = `/contracts/${id}/commits`;
      const body = JSON.stringify({ contract_id: id, commit });
      const t = performance.now();
      await expectOk(send(base, "POST", path, body, authHeaders(p, "POST", path, body)), "POST /commits");
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    return { p50: ms[Math.floor(N / 2)]!, p99: ms[Math.floor(N * 0.99)]! };
  };
  const long = await one(longId, longHead, longLength);
  const short = await one(shortId, g.hash, 0);
  const history = `one client, ${N} commits in a row`;
  for (const [label, v] of [
    [`${longLength + 1}-commit contract`, long],
    ["new contract", short],
  ] as const) {
    r.add({ bench: BENCH, case: `POST /commits on a ${label}: latency p50`, value: v.p50, unit: "ms", note: history });
    r.add({ bench: BENCH, case: `POST /commits on a ${label}: latency p99`, value: v.p99, unit: "ms", note: history });
  }
  r.add({
    bench: BENCH,
    case: `POST /commits p50 at ${longLength + 1} commits / p50 on a new contract`,
    value: long.p50 / short.p50,
    unit: "ratio",
    note: "flat in history: ≈ 1",
  });
}

// ---- 2. single commits from 32 clients ------------------------------------------------

interface Prepared {
  path: string;
  body: string;
  headers: Record<string, string>;
}

async function singleCommits(r: Reporter, hub: HubProcess): Promise<void> {
  const base = hub.url;
  const CLIENTS = 32;
  const WARM = QUICK ? 20 : 60;
  const PER_CLIENT = QUICK ? 100 : 400;
  const PACED = QUICK ? 50 : 200;
  const parties = Array.from({ length: CLIENTS }, newParty);
  const plans: Prepared[][] = [];
  for (const p of parties) {
    await register(base, p);
    const id = contractId("single");
    const g = genesisOf(p, id);
    await push(base, p, id, JSON.stringify({ commits: [g] }));
    const path = `/contracts/${id}/commits`;
    plans.push(
      chain(p, id, g.hash, 0, WARM + PER_CLIENT + PACED).map((commit) => {
        const body = JSON.stringify({ contract_id: id, commit });
        return { path, body, headers: authHeaders(p, "POST", path, body) };
      }),
    );
  }

  let lastResponse = 0;
  let firstRefusal: string | undefined;
  /** Each client's next prepared commit: the runs below continue where the last one stopped. */
  const next: number[] = plans.map(() => 0);
  /** Each connection sends its own client's commits in order, one at a time. */
  const run = (count: number) => {
    let nextClient = 0;
    return autocannon({
      url: base,
      connections: CLIENTS,
      pipelining: 1,
      maxConnectionRequests: count,
      // Ends when every connection has sent its `count`; the default of 10 s would end a run
      // early on a slow machine.
      duration: 3600,
      timeout: 30,
      // autocannon resets a connection's context before each request from `initialContext`:
      // giving each connection its own initial context names its client.
      setupClient: (client) => {
        client.requestIterator.initialContext = { client: nextClient++ };
        client.requestIterator.resetContext();
        // The first request was built before this hook ran, without a client: build it again.
        client.requestIterator.rebuildRequest();
      },
      requests: [
        {
          setupRequest: (req, context) => {
            const c = context.client as number | undefined;
            if (c === undefined) return { ...req, method: "GET", path: "/health" };
            const plan = plans[c]![next[c]!++]!;
            return { ...req, method: "POST", path: plan.path, headers: plan.headers, body: plan.body };
          },
          onResponse: (status, body) => {
            lastResponse = performance.now();
            if (status >= 300) firstRefusal ??= body;
          },
        },
      ],
    });
  };
  await run(WARM);
  const t0 = performance.now();
  const generator = process.cpuUsage();
  const { value: result, usPerOp, split } = await hubCpu(hub, CLIENTS * PER_CLIENT, () => run(PER_CLIENT));
  const generatorCpu = process.cpuUsage(generator);
  // Up to the last answer: autocannon notices the end on a one-second tick, so its own duration
  // (and the time until its promise settles) is rounded up to whole seconds.
  const seconds = (lastResponse - t0) / 1000;
  const errors = result.errors + result.timeouts + result.non2xx;
  const total = result.requests.total;
  r.add({
    bench: BENCH,
    case: `POST /commits, ${CLIENTS} clients (one contract each), ${CLIENTS} × ${PER_CLIENT} signed commits`,
    value: total / seconds,
    unit: "commits/s",
    note: `${SHARED}; autocannon in the bench process`,
  });
  r.add({ bench: BENCH, case: "POST /commits: hub CPU time per request (all threads)", value: usPerOp, unit: "µs" });
  addSplit(r, "POST /commits", "request", split);
  r.add({
    bench: BENCH,
    case: "POST /commits: load generator CPU time per request (this process)",
    value: (generatorCpu.user + generatorCpu.system) / (CLIENTS * PER_CLIENT),
    unit: "µs",
    note: `what the clients take from the ${cpus().length} cores the hub runs on`,
  });
  r.add({ bench: BENCH, case: "POST /commits latency p50", value: result.latency.p50, unit: "ms" });
  r.add({ bench: BENCH, case: "POST /commits latency p99", value: result.latency.p99, unit: "ms" });
  r.add({
    bench: BENCH,
    case: "POST /commits errors (connection errors + timeouts + non-2xx)",
    value: errors,
    unit: "requests",
    note: `${total} answered, ${result["2xx"]} 2xx`,
  });
  if (errors > 0)
    process.stderr.write(`  hub · single commits: ${JSON.stringify(result.statusCodeStats)}, first: ${firstRefusal}\n`);
  const inside = latencyInsideHub(hub.logFile, total);
  for (const [q, v] of Object.entries(inside ?? {})) {
    r.add({
      bench: BENCH,
      case: `POST /commits latency ${q} inside the hub`,
      value: v,
      unit: "ms",
      note: "onRequest to onResponse, from its request log: without the waits before the hub reads a request and in the load generator",
    });
  }

  // The same 32 clients below saturation: each sends at a fixed pace, together half the rate
  // just measured. With every client waiting for its answer before the next (above), the mean
  // latency is 32 ÷ the rate (Little's law) whatever the hub does; paced, it is the hub's own.
  const rate = Math.max(CLIENTS, Math.round(total / seconds / 2));
  const pacedCount = CLIENTS * PACED;
  const { value: latencies, usPerOp: pacedUs } = await hubCpu(hub, pacedCount, () =>
    paced(base, plans, next, PACED, rate),
  );
  const pacedCase = `POST /commits, ${CLIENTS} clients paced at ${rate} requests/s in all (half the rate above)`;
  const pacedNote = "from each request's scheduled time, so a late answer also delays the next request's count";
  r.add({
    bench: BENCH,
    case: `${pacedCase}: latency p50`,
    value: quantile(latencies, 0.5),
    unit: "ms",
    note: pacedNote,
  });
  r.add({
    bench: BENCH,
    case: `${pacedCase}: latency p99`,
    value: quantile(latencies, 0.99),
    unit: "ms",
    note: pacedNote,
  });
  r.add({ bench: BENCH, case: `${pacedCase}: hub CPU time per request (all threads)`, value: pacedUs, unit: "µs" });
  const pacedInside = latencyInsideHub(hub.logFile, pacedCount);
  if (pacedInside)
    r.add({ bench: BENCH, case: `${pacedCase}: latency p99 inside the hub`, value: pacedInside.p99, unit: "ms" });
}

/**
 * Sends `count` prepared commits per client, from its `next` on, each client on its own keep-alive
 * connection at `rate ÷ clients` requests a second, the clients' schedules spread evenly over
 * one interval. Resolves each request's latency in ms, measured from the time it was due: a
 * client whose previous answer came late sends at once, and that wait counts (no coordinated
 * omission).
 */
async function paced(
  base: string,
  plans: Prepared[][],
  next: number[],
  count: number,
  rate: number,
): Promise<number[]> {
  const { hostname, port } = new URL(base);
  const interval = (plans.length / rate) * 1000;
  const start = performance.now() + 50;
  const latencies: number[] = [];
  await Promise.all(
    plans.map(async (plan, c) => {
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < count; i++) {
        const due = start + (c / plans.length + i) * interval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const { path, body, headers } = plan[next[c]!++]!;
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            {
              hostname,
              port,
              path,
              method: "POST",
              agent,
              headers: { ...headers, "content-length": Buffer.byteLength(body) },
            },
            (res) => {
              res.resume();
              res.on("end", () => resolve(res.statusCode ?? 0));
            },
          );
          req.on("error", reject);
          req.end(body);
        });
        if (status < 200 || status > 299) throw new Error(`paced POST ${path} answered ${status}`);
        latencies.push(performance.now() - due);
      }
      agent.destroy();
    }),
  );
  return latencies;
}

/** The q-quantile of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * p50 and p99 of the last `count` POST /commits the hub logged (its `ms`: from fastify's
 * onRequest to onResponse), or null when the log holds fewer (HUB_LOG_LEVEL above info).
 */
function latencyInsideHub(logFile: string, count: number): { p50: number; p99: number } | null {
  const ms: number[] = [];
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.includes('"msg":"request"')) continue;
    const entry = JSON.parse(line) as { method?: string; url?: string; ms?: number };
    if (entry.method === "POST" && entry.url?.endsWith("/commits") && typeof entry.ms === "number") ms.push(entry.ms);
  }
  if (ms.length < count) return null;
  const last = ms.slice(-count).sort((a, b) => a - b);
  return { p50: last[Math.floor(count / 2)]!, p99: last[Math.floor(count * 0.99)]! };
}

// ---- 3. pull of a 100,000-commit contract ---------------------------------------------

/** Builds a contract of `length` commits (genesis + signed steps) by pushes of 10,000. */
async function bigContract(base: string, p: Party, length: number): Promise<{ id: string; head: string }> {
  const id = contractId("pull");
  const g = genesisOf(p, id);
  await push(base, p, id, JSON.stringify({ commits: [g] }));
  let parent = g.hash;
  for (let done = 1; done < length; ) {
    const n = Math.min(10_000, length - done);
    const commits = chain(p, id, parent, done - 1, n);
    parent = commits.at(-1)!.hash;
    await push(base, p, id, JSON.stringify({ commits }));
    done += n;
  }
  return { id, head: parent };
}

/** Streams a pull, counting bytes; samples the hub's RSS while it runs. */
async function timedPull(
  hub: HubProcess,
  id: string,
  query = "",
): Promise<{ ms: number; bytes: number; peakRss: number; cpuMs: number }> {
  let peak = rssOf(hub.pid);
  const cpu0 = cpuMsOf(hub.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(hub.pid));
  }, 5);
  const start = performance.now();
  const bytes = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(new URL(`/contracts/${id}/pull${query}`, hub.url), (res) => {
      if (res.statusCode !== 200) reject(new Error(`pull: HTTP ${res.statusCode}`));
      let n = 0;
      let tail = "";
      res.on("data", (c: Buffer) => {
        n += c.length;
        tail = (tail + c.toString("latin1")).slice(-2);
      });
      res.on("end", () => (tail.endsWith("}") ? resolve(n) : reject(new Error("pull: truncated body"))));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  const ms = performance.now() - start;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(hub.pid));
  return { ms, bytes, peakRss: peak, cpuMs: cpuMsOf(hub.pid) - cpu0 };
}

/** Pulls of `id` (LENGTH commits): a fifth, then all twice; reports rate, ratio to raw verify, CPU and memory. */
async function pullFigures(
  r: Reporter,
  hub: HubProcess,
  id: string,
  length: number,
  raw: RawRates,
  memory: boolean,
): Promise<void> {
  const size = length.toLocaleString("en");
  // A fifth of the log first: if the pull streams, the full pull's peak is no higher.
  const baseline = rssOf(hub.pid);
  const fifth = memory ? await timedPull(hub, id, `?limit=${Math.floor(length / 5)}`) : undefined;
  const cold = await timedPull(hub, id);
  const warm = await timedPull(hub, id);
  const best = Math.max(length / cold.ms, length / warm.ms) * 1000;
  const mib = (b: number) => b / 2 ** 20;
  r.add({
    bench: BENCH,
    case: `pull all ${size} commits (first)`,
    value: (length / cold.ms) * 1000,
    unit: "commits/s",
    note: `${mib(cold.bytes).toFixed(1)} MiB in ${(cold.ms / 1000).toFixed(2)} s; second pull ${((length / warm.ms) * 1000).toFixed(0)} commits/s; ${SHARED}`,
  });
  r.add({
    bench: BENCH,
    case: `pull ${size}: better of two pulls / raw sync verify/s (target ≥ 12)`,
    value: best / raw.sync,
    unit: "ratio",
    note: `raw verify ${raw.sync.toFixed(0)}/s in this run`,
  });
  const cpuPerCommit = (Math.min(cold.cpuMs, warm.cpuMs) * 1000) / length;
  r.add({
    bench: BENCH,
    case: `pull ${size}: hub CPU time per commit (first, second)`,
    value: (cold.cpuMs * 1000) / length,
    unit: "µs",
    note: `second pull ${((warm.cpuMs * 1000) / length).toFixed(2)} µs; /proc ticks are 10 ms`,
  });
  // The same comparison by CPU time, which other load on a shared machine does not move.
  r.add({
    bench: BENCH,
    case: `pull ${size}: raw verify CPU per op / hub CPU per pulled commit (target ≥ 12)`,
    value: raw.cpuPerVerify / cpuPerCommit,
    unit: "ratio",
    note: `${raw.cpuPerVerify.toFixed(1)} µs per verify, ${cpuPerCommit.toFixed(2)} µs per pulled commit (better pull)`,
  });
  if (!memory || fifth === undefined) return;
  r.add({
    bench: BENCH,
    case: "pull: hub peak RSS above its RSS before the pull",
    value: mib(Math.max(cold.peakRss, warm.peakRss) - baseline),
    unit: "MiB",
    note: `RSS before ${mib(baseline).toFixed(0)} MiB, peak ${mib(Math.max(cold.peakRss, warm.peakRss)).toFixed(0)} MiB; response ${mib(cold.bytes).toFixed(1)} MiB`,
  });
  r.add({
    bench: BENCH,
    case: `pull: peak RSS rise, all commits / first ${Math.floor(length / 5).toLocaleString("en")} (limit)`,
    value: (Math.max(cold.peakRss, warm.peakRss) - baseline) / Math.max(1, fifth.peakRss - baseline),
    unit: "ratio",
    note: `${mib(fifth.peakRss - baseline).toFixed(1)} MiB for ${mib(fifth.bytes).toFixed(1)} MiB; 5 would mean memory grows with the response`,
  });
  r.add({
    bench: BENCH,
    case: "pull: (peak RSS − RSS before) / response size",
    value: (Math.max(cold.peakRss, warm.peakRss) - baseline) / cold.bytes,
    unit: "ratio",
    note: "streaming: far below 1",
  });
}

/** The figure: a 10,001-commit contract (genesis + 10,000 signed steps, one push). */
const PULL_SMALL = 10_001;

async function pullBig(r: Reporter, dataDir: string, first: HubProcess, raw: RawRates): Promise<HubProcess> {
  const LENGTH = QUICK ? 20_000 : 100_000;
  const p = newParty();
  await register(first.url, p);
  const buildStart = performance.now();
  const { id } = await bigContract(first.url, p, LENGTH);
  const buildMs = performance.now() - buildStart;
  const small = await bigContract(first.url, p, PULL_SMALL);
  r.add({
    bench: BENCH,
    case: `build the ${LENGTH.toLocaleString("en")}-commit contract: pushes of 10,000 (incl. signing them here)`,
    value: buildMs / 1000,
    unit: "s",
  });
  // A fresh hub process on the same data, so its memory holds nothing from the pushes.
  await first.stop();
  const hub = await startHub(dataDir, "pull");
  // Load the contracts' states before measuring, as any hub that served them has.
  await expectOk(send(hub.url, "GET", `/contracts/${id}/pull?limit=1`), "pull limit=1");
  await expectOk(send(hub.url, "GET", `/contracts/${small.id}/pull?limit=1`), "pull limit=1");
  await new Promise((resolve) => setTimeout(resolve, 300));
  await pullFigures(r, hub, small.id, PULL_SMALL, raw, false);
  await pullFigures(r, hub, id, LENGTH, raw, true);
  return hub;
}

export default async function hubBench(r: Reporter): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "hub-bench-"));
  let hub = await startHub(dataDir, "ingest");
  try {
    // Measured once per run: the push and pull figures are both stated against it.
    let raw: RawRates | undefined;
    const rawRates = async () => (raw ??= await rawVerifyRates(r));
    if (ONLY("push")) await pushIngest(r, hub, await rawRates());
    if (ONLY("single")) await singleCommits(r, hub);
    if (ONLY("pull")) hub = await pullBig(r, dataDir, hub, await rawRates());
  } finally {
    await hub.stop();
    if (process.env.HUB_BENCH_KEEP === "1") process.stderr.write(`  hub · kept ${dataDir} (hub.log, the store)\n`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}
