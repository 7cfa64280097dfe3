/**
 * Contract engine costs (docs/engine.md): per-commit validation at the tip of logs of 10,
 * 1,000 and 100,000 commits; single-threaded commit throughput against raw ed25519 verify;
 * the batch path against async verify; and a MODEL replacement on a 100,000-commit log.
 * Run: npx tsx bench/run.ts engine
 */
import { verify as cryptoVerify } from "node:crypto";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import {
  acceptCommit,
  acceptGenesis,
  applyDelta,
  type ContractState,
  genesisData,
  type StoredCommit,
  verifyBatchSignatures,
} from "../src/contract/engine.js";
import { generateKeyPair, PublicKeyCache, verifyAsync } from "../src/contract/keys.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "engine";
const CONTRACT = "c_bench_engine_0123456789";
const MODEL = `model Loop {
  initial idle
  idle -> busy [+DEPOSIT +signed_by(/users/buyer.id)]
  busy -> idle [+RELEASE +signed_by(/users/buyer.id)]
  idle -> idle [+MODEL +signed_by(/users/buyer.id)]
  busy -> busy [+MODEL +signed_by(/users/buyer.id)]
}`;
const MODEL_V2 = MODEL.replace("}", "  busy -> busy [+NOTE +signed_by(/users/buyer.id)]\n}");
const RULE = "always(eventually(idle))";

const buyer = generateKeyPair();
const BUYER = buyer.publicKey.toString("hex");

function opsAt(i: number): Operation[] {
  return [
    { method: "post", path: "/notes/last.text", value: `note ${i}` },
    { method: "action", value: i % 2 === 0 ? "DEPOSIT" : "RELEASE" },
  ];
}

/** A contract with `length` commits: genesis, then trusted appends (stored signers, no signatures). */
async function contractOf(length: number): Promise<{ state: ContractState; log: StoredCommit[] }> {
  let t = 1_700_000_000;
  const genesis = buildWireCommit(
    CONTRACT,
    null,
    genesisData({ model: MODEL, rules: [RULE], owner: `ed25519:${BUYER}`, state: { "/users/buyer.id": BUYER } }),
  );
  const { state, stored } = await acceptGenesis(CONTRACT, genesis, { timestamp: t });
  const log = [stored];
  for (let i = 1; i < length; i++) {
    const commit = buildWireCommit(CONTRACT, state.head, opsAt(i - 1));
    const accepted = await acceptCommit(state, commit, { timestamp: ++t, trusted: true, verifiedSigners: [BUYER] });
    applyDelta(state, accepted.delta);
    log.push(accepted.stored);
  }
  return { state, log };
}

/** `n` signed commits chained from `state`'s head. */
function signedWindow(state: ContractState, n: number): WireCommit[] {
  const out: WireCommit[] = [];
  let parent = state.head;
  for (let i = 0; i < n; i++) {
    const c = buildWireCommit(CONTRACT, parent, opsAt(state.length - 1 + i), [
      { key: buyer.seed, as: "/users/buyer.id" },
    ]);
    out.push(c);
    parent = c.hash;
  }
  return out;
}

/** Validates `window` in order on a clone of `state`, `rounds` times; returns µs per commit (median round). */
async function perCommitMicros(state: ContractState, window: WireCommit[], rounds: number): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const s = state.clone();
    const start = performance.now();
    for (const c of window) applyDelta(s, (await acceptCommit(s, c, { timestamp: 1_800_000_000 })).delta);
    times.push(((performance.now() - start) * 1000) / window.length);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export default async function engineBench(r: Reporter): Promise<void> {
  // Per-commit validation cost by log length.
  const WINDOW = 500;
  const ROUNDS = 9;
  const perCommit = new Map<number, number>();
  let big: { state: ContractState; log: StoredCommit[] } | undefined;
  for (const length of [10, 1_000, 100_000]) {
    const built = await contractOf(length);
    if (length === 100_000) big = built;
    const window = signedWindow(built.state, WINDOW);
    await perCommitMicros(built.state, window, 2); // warm-up
    const us = await perCommitMicros(built.state, window, ROUNDS);
    perCommit.set(length, us);
    r.add({
      bench: BENCH,
      case: `validate a signed commit at the tip of a ${length.toLocaleString("en")}-commit log`,
      value: us,
      unit: "µs/commit",
      note: `median of ${ROUNDS} rounds of ${WINDOW}`,
    });
  }
  r.add({
    bench: BENCH,
    case: "per-commit cost, 100,000 / 10",
    value: perCommit.get(100_000)! / perCommit.get(10)!,
    unit: "ratio",
    note: "target ≤ 1.2",
  });

  // Single-threaded throughput vs raw verify, measured back to back.
  const small = await contractOf(10);
  const window = signedWindow(small.state, 4000);
  const hash = Buffer.from(window[0]!.hash, "hex");
  const sig = Buffer.from(Object.values(window[0]!.head.signatures)[0]!, "hex");
  const keyObject = new PublicKeyCache().get(buyer.publicKey);
  const rawRate = (() => {
    for (let i = 0; i < 2000; i++) cryptoVerify(null, hash, keyObject, sig);
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < 1500) {
      cryptoVerify(null, hash, keyObject, sig);
      n++;
    }
    return (n / (performance.now() - start)) * 1000;
  })();
  const commitRate = 1e6 / (await perCommitMicros(small.state, window, 3));
  r.add({ bench: BENCH, case: "raw ed25519 verify, sync, cached KeyObject", value: rawRate, unit: "ops/s" });
  r.add({ bench: BENCH, case: "acceptCommit, one signature, one at a time", value: commitRate, unit: "commits/s" });
  r.add({
    bench: BENCH,
    case: "commits/s one at a time / raw verify/s",
    value: commitRate / rawRate,
    unit: "ratio",
    note: "target ≥ 0.8",
  });

  // Batch path: pre-verify the whole batch in parallel, then validate in order with verifiedSigners.
  const batchRates: number[] = [];
  const phases: Array<[number, number]> = [];
  for (let round = 0; round < 3; round++) {
    const s = small.state.clone();
    const start = performance.now();
    const verified = await verifyBatchSignatures(s, window);
    const mid = performance.now();
    for (const [i, c] of window.entries()) {
      const signers = verified[i];
      const ctx = signers ? { timestamp: 1_800_000_000, verifiedSigners: signers } : { timestamp: 1_800_000_000 };
      applyDelta(s, (await acceptCommit(s, c, ctx)).delta);
    }
    const end = performance.now();
    batchRates.push((window.length / (end - start)) * 1000);
    phases.push([((mid - start) * 1000) / window.length, ((end - mid) * 1000) / window.length]);
  }
  const batchRate = [...batchRates].sort((a, b) => a - b)[1]!;
  const phase = phases[batchRates.indexOf(batchRate)]!;
  const asyncRate = await (async () => {
    const total = 8000;
    let started = 0;
    const start = performance.now();
    const lane = async () => {
      while (started < total) {
        started++;
        await verifyAsync(keyObject, hash, sig);
      }
    };
    await Promise.all(Array.from({ length: 64 }, lane));
    return (total / (performance.now() - start)) * 1000;
  })();
  r.add({
    bench: BENCH,
    case: `batch of ${window.length}: verifyBatchSignatures + acceptCommit`,
    value: batchRate,
    unit: "commits/s",
  });
  r.add({ bench: BENCH, case: "ed25519 verifyAsync, 64 in flight", value: asyncRate, unit: "ops/s" });
  r.add({
    bench: BENCH,
    case: "batch commits/s / async verify/s",
    value: batchRate / asyncRate,
    unit: "ratio",
    note: `pre-verify ${phase[0].toFixed(0)} µs/commit, in-order validation ${phase[1].toFixed(0)} µs/commit`,
  });

  // MODEL replacement at the tip of a 100,000-commit log: replays the whole log in the candidate.
  const { state, log } = big!;
  const replace = buildWireCommit(
    CONTRACT,
    state.head,
    [{ method: "model", path: "/model/default.modality", value: MODEL_V2 }],
    [{ key: buyer.seed, as: "/users/buyer.id" }],
  );
  const ctx = {
    timestamp: 1_800_000_000,
    readLog: () => log,
    commitIndex: () => null,
  };
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await acceptCommit(state, replace, ctx);
    times.push(performance.now() - start);
  }
  r.add({
    bench: BENCH,
    case: "MODEL replacement on a 100,000-commit log",
    value: times[0]!,
    unit: "ms",
    note: `first run; median of 5: ${times.sort((a, b) => a - b)[2]!.toFixed(0)} ms`,
  });
}
