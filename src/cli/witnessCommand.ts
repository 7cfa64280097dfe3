/**
 * `contract-hub witness` (docs/transparency.md, docs/cli.md): a transparency-log witness for
 * one or more hubs. It serves the C2SP tlog-witness API (hubs started with `--witness`
 * submit each new checkpoint to it) and, with `--follow`, polls hubs that do not. Every
 * checkpoint must carry the pinned log key's signature and extend the newest one the witness
 * cosigned for that log, which it keeps in its directory across restarts; a rollback or a
 * fork is refused and reported on stderr, naming the log, the check and both sizes.
 * `--once` looks at each followed hub once and exits 1 if any was refused or unreachable.
 * Each request to a followed hub waits at most `--timeout` (`CONTRACT_HUB_TIMEOUT`), as every
 * request of the command line to a hub does; a hub that never answers is then reported and
 * looked at again at the next interval.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { publicKeyFromSeed } from "../contract/keys.js";
import { ORIGIN_PATTERN, parseVerifierKey } from "../tlog/checkpoint.js";
import { readOrCreateLogKeyFile } from "../tlog/logKeyFile.js";
import { FOLLOW_TIMEOUT_MS, type FollowResult, followHub } from "../witness/followHub.js";
import { type Refusal, type TrustedLog, Witness } from "../witness/Witness.js";
import { WitnessRecords } from "../witness/WitnessRecords.js";
import { serveWitness } from "../witness/witnessServer.js";
import type { CliIo } from "./cliContext.js";
import { UsageError as HubTimeoutUsage } from "./cliContext.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./Io.js";
import { untilSignal } from "./untilSignal.js";
import { hubTimeoutMs } from "./workingCopy/hubTimeout.js";
import { collect } from "./workingCopy/identities.js";

export interface WitnessFlags {
  dataDir?: string;
  name?: string;
  log?: string[];
  follow?: string[];
  interval?: string;
  port?: string;
  host?: string;
  once?: boolean;
  json?: boolean;
  timeout?: string;
}

export interface WitnessDeps {
  env?: Record<string, string | undefined>;
  /** Where a relative --data-dir (and the default ./witness) is resolved (default: the process's). */
  cwd?: string;
  /** Resolves when the witness should stop (default: SIGINT or SIGTERM). */
  stop?: Promise<unknown>;
}

export function registerWitnessCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("witness")
    .description("Witness hubs' logs: check each checkpoint's consistency and cosign it (C2SP tlog-witness)")
    .option("--log <verifier-key>", "a log to witness, as `GET /checkpoint/key` prints it (repeatable)", collect)
    .option(
      "--data-dir <dir>",
      "where the witness keeps its key and what it cosigned (env WITNESS_DATA_DIR; default ./witness)",
    )
    .option("--name <name>", "the witness's key name (default contract-hub-witness/<key hash>)")
    .option("--port <port>", "HTTP port for add-checkpoint (0 = any free port; env WITNESS_PORT; default 8090)")
    .option("--host <host>", "address to bind (env WITNESS_HOST; default 127.0.0.1)")
    .option("--follow <hub-url>", "poll this hub's checkpoint too (repeatable)", collect)
    .option("--interval <ms>", "how often to poll followed hubs (default 10000)")
    .option(
      "--timeout <ms>",
      "the most one request to a followed hub waits, 0 = no limit (env CONTRACT_HUB_TIMEOUT; default 10000)",
    )
    .option("--once", "poll each followed hub once, print what was found and exit (1 if any was refused)")
    .option("--json", "with --once: print JSON")
    .action(async (opts: WitnessFlags) => setExit(await witnessCommand(opts, io, { env: io.env, cwd: io.cwd })));
}

class UsageError extends Error {}

function integer(value: string | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${name} must be an integer ≥ ${min}, not "${value}"`);
  return n;
}

/**
 * The logs to witness, one per origin: the witness checks an origin's checkpoints against one
 * key, so two keys for one origin are refused rather than the last one silently trusted.
 */
function trustedLogs(keys: readonly string[]): TrustedLog[] {
  if (keys.length === 0) throw new UsageError("name at least one log to witness: --log <verifier key>");
  const byOrigin = new Map<string, TrustedLog>();
  for (const text of keys) {
    let log: TrustedLog;
    try {
      const { origin, publicKey } = parseVerifierKey(text);
      log = { origin, publicKey };
    } catch (err) {
      throw new UsageError(`--log ${text}: ${(err as Error).message}`);
    }
    const other = byOrigin.get(log.origin);
    if (other !== undefined && !other.publicKey.equals(log.publicKey)) {
      throw new UsageError(`--log ${log.origin} is given with two keys; a log is witnessed under one key`);
    }
    byOrigin.set(log.origin, log);
  }
  return [...byOrigin.values()];
}

/** One stderr line per refusal: the log, the check and both sizes. */
const refusalLine = (r: Refusal) =>
  `contract-hub witness: REFUSED ${r.check} by log ${r.origin}: ${r.message} (cosigned ${r.cosigned_size}, offered ${r.offered_size})`;

/** Runs the witness until stopped (or, with --once, polls once); returns the exit code. */
export async function witnessCommand(flags: WitnessFlags, io: Io, deps: WitnessDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  let logs: TrustedLog[];
  let port: number;
  let interval: number;
  let timeoutMs: number | undefined;
  try {
    logs = trustedLogs(flags.log ?? []);
    port = integer(flags.port ?? env.WITNESS_PORT, "--port", 8090, 0);
    interval = integer(flags.interval, "--interval", 10_000, 10);
    timeoutMs = followTimeout(flags.timeout, env);
    if (flags.name !== undefined && !ORIGIN_PATTERN.test(flags.name)) {
      throw new UsageError(`--name must be 1 to 128 of A-Z a-z 0-9 . _ / : -, not ${JSON.stringify(flags.name)}`);
    }
    if (flags.once && (flags.follow ?? []).length === 0) throw new UsageError("--once needs at least one --follow");
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`contract-hub witness: ${err.message}`);
    if (flags.json) io.out(JSON.stringify({ error: err.message, code: "USAGE" }, null, 2));
    return EXIT_USAGE;
  }
  const dir = resolve(deps.cwd ?? process.cwd(), flags.dataDir ?? env.WITNESS_DATA_DIR ?? "witness");
  let witness: Witness;
  try {
    mkdirSync(dir, { recursive: true });
    const seed = readOrCreateLogKeyFile(join(dir, "witness-key.json"));
    const hash = createHash("sha256").update(publicKeyFromSeed(seed)).digest("hex").slice(0, 16);
    witness = new Witness({
      name: flags.name ?? `contract-hub-witness/${hash}`,
      seed,
      logs,
      records: new WitnessRecords(dir),
      onRefusal: (r) => io.err(refusalLine(r)),
    });
  } catch (err) {
    const message = `cannot open ${dir}: ${(err as Error).message}`;
    io.err(`contract-hub witness: ${message}`);
    if (flags.json)
      io.out(JSON.stringify({ error: message, code: "INTERNAL", details: { reason: "data_dir" } }, null, 2));
    return EXIT_FAILED;
  }
  const follow = flags.follow ?? [];
  if (flags.once) return pollOnce(witness, follow, { timeoutMs }, flags.json === true, io);

  let served: Awaited<ReturnType<typeof serveWitness>>;
  try {
    served = await serveWitness(witness, logs, flags.host ?? env.WITNESS_HOST ?? "127.0.0.1", port, (err) =>
      io.err(`contract-hub witness: ${(err as Error).message}`),
    );
  } catch (err) {
    io.err(`contract-hub witness: cannot listen: ${(err as Error).message}`);
    return EXIT_FAILED;
  }
  io.out(`Witness   ${witness.verifierKey()}`);
  io.out(`HTTP      ${served.url}  (POST /add-checkpoint)`);
  for (const log of logs) io.out(`Log       ${log.origin} (cosigned size ${witness.cosignedSize(log.origin)})`);
  io.out(`Hubs add  --witness ${witness.verifierKey()}@${served.url}`);

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // Stopping cancels a look in progress: with --timeout 0 a silent hub would otherwise keep
  // the process alive after it has stopped serving.
  const stopping = new AbortController();
  const poll = async () => {
    for (const hub of follow) {
      if (stopped) return;
      let r: FollowResult;
      try {
        r = await followHub(witness, hub, { timeoutMs, signal: stopping.signal });
      } catch (err) {
        // Not the hub's answer but the witness's own failure (its records): reported, and
        // the next interval tries again rather than the follower stopping for good.
        r = { hub, outcome: "error", message: (err as Error).message };
      }
      if (stopped) return;
      if (r.outcome === "error") io.err(`contract-hub witness: cannot follow ${r.hub}: ${r.message}`);
      else if (r.outcome === "refused" && r.status !== 409 && r.status !== 422) {
        io.err(`contract-hub witness: refused ${r.hub}'s checkpoint (${r.status}): ${r.message}`);
      }
    }
    if (!stopped) timer = setTimeout(poll, interval);
  };
  if (follow.length > 0) void poll();

  await (deps.stop ?? untilSignal());
  stopped = true;
  clearTimeout(timer);
  stopping.abort();
  await new Promise<void>((done) => {
    served.server.close(() => done());
    served.server.closeIdleConnections();
  });
  return EXIT_OK;
}

/**
 * The bound on each request to a followed hub: `--timeout`, else `CONTRACT_HUB_TIMEOUT`, read
 * as for every hub-facing command (hubTimeout.ts), else 10 s (FOLLOW_TIMEOUT_MS: a checkpoint
 * is small, unlike the push and pull pages the commands' two-minute default is sized for).
 */
function followTimeout(flag: string | undefined, env: Record<string, string | undefined>): number | undefined {
  try {
    return hubTimeoutMs(flag, env, FOLLOW_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof HubTimeoutUsage) throw new UsageError(err.message);
    throw err;
  }
}

async function pollOnce(
  witness: Witness,
  hubs: readonly string[],
  opts: { timeoutMs: number | undefined },
  json: boolean,
  io: Io,
): Promise<number> {
  const results: FollowResult[] = [];
  for (const hub of hubs) results.push(await followHub(witness, hub, opts));
  if (json) io.out(JSON.stringify({ witness: witness.verifierKey(), hubs: results }, null, 2));
  else {
    for (const r of results) {
      const what = r.outcome === "cosigned" ? `cosigned ${r.origin} at size ${r.size}` : `${r.outcome}: ${r.message}`;
      io.out(`${r.hub}  ${what}`);
    }
  }
  return results.every((r) => r.outcome === "cosigned") ? EXIT_OK : EXIT_FAILED;
}
