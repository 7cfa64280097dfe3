/**
 * `contract-hub start` configuration (docs/api.md): defaults, then `HUB_*` environment
 * variables, then flags. Invalid values are a usage error naming the flag or variable.
 */
import { DEFAULT_CALLER_SUBSCRIPTIONS } from "../http/CallerSubscriptions.js";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "../http/HttpOptions.js";
import { DEFAULT_REGISTRATION_LIMIT } from "../http/RegistrationLimit.js";
import { DEFAULT_GAS_LIMIT, DEFAULT_WORKERS } from "../predicates/wasm/WasmPredicateRunner.js";
import { parseWitnessVerifierKey, type WitnessKey } from "../tlog/cosignature.js";

export interface StartConfig {
  host: string;
  port: number;
  rpcPort: number;
  rpc: boolean;
  dataDir: string;
  databaseUrl: string | null;
  /** Requests per second per key; 0 turns limiting off. */
  rateLimit: number;
  /** Run custom WASM predicates (`--no-wasm` turns them off). */
  wasm: boolean;
  /** Worker threads that run custom predicates (default: one per core). */
  wasmWorkers: number;
  /** Gas budget of one custom predicate evaluation. */
  wasmGasLimit: number;
  /** The log key's file (`--log-key`), or null: the key kept with the store. */
  logKeyFile: string | null;
  /** The checkpoints' origin (`--log-origin`), or null: derived from the log key. */
  logOrigin: string | null;
  /** Expensive work per identity (per address when anonymous), CPU-milliseconds a minute; 0 = unlimited. */
  workBudget: number;
  /** Anonymous WebSocket connections per address; 0 = no cap. */
  anonymousSockets: number;
  /** WebSocket subscriptions one caller holds at once, per identity (per address when anonymous); 0 = no cap. */
  callerSubscriptions: number;
  /** New identities per client address per hour (`/register`); 0 = no limit. */
  registrationLimit: number;
  /** Milliseconds to receive a request's line and headers (at most `requestTimeoutMs`). */
  headersTimeoutMs: number;
  /** Milliseconds to receive a whole request, body included (past it: 408 request_timeout). */
  requestTimeoutMs: number;
  /** State visits one request's model checks may spend together (past it: 422 check_budget). */
  checkBudget: number;
  /** Witnesses whose cosignatures checkpoints need (`--witness <verifier key>@<url>`). */
  witnesses: { key: WitnessKey; url: string }[];
  /** Cosignatures a checkpoint needs (`--witness-quorum`; default: every witness). */
  witnessQuorum: number;
  /** Milliseconds between rounds of submitting checkpoints to the witnesses. */
  witnessInterval: number;
  /** A contract's state snapshot is stored every this many commits; 0 = never (docs/storage.md). */
  snapshotEvery: number;
}

/** Options as commander parses them (strings, or `rpc: false` from `--no-rpc`). */
export interface StartFlags {
  port?: string;
  rpcPort?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  rpc?: boolean;
  rateLimit?: string;
  wasm?: boolean;
  wasmWorkers?: string;
  wasmGasLimit?: string;
  logKey?: string;
  logOrigin?: string;
  workBudget?: string;
  anonymousSockets?: string;
  callerSubscriptions?: string;
  registrationLimit?: string;
  headersTimeout?: string;
  requestTimeout?: string;
  checkBudget?: string;
  witness?: string[];
  witnessQuorum?: string;
  witnessInterval?: string;
  snapshotEvery?: string;
}

/** A configuration value that cannot be used. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export const DEFAULT_CONFIG: Readonly<StartConfig> = Object.freeze({
  host: "127.0.0.1",
  port: 8080,
  rpcPort: 3000,
  rpc: true,
  dataDir: "./data",
  databaseUrl: null,
  rateLimit: 500,
  wasm: true,
  wasmWorkers: DEFAULT_WORKERS,
  wasmGasLimit: DEFAULT_GAS_LIMIT,
  logKeyFile: null,
  logOrigin: null,
  workBudget: 5_000,
  anonymousSockets: 100,
  callerSubscriptions: DEFAULT_CALLER_SUBSCRIPTIONS,
  registrationLimit: DEFAULT_REGISTRATION_LIMIT,
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  checkBudget: 100_000_000,
  witnesses: [],
  witnessQuorum: 0,
  witnessInterval: 1000,
  snapshotEvery: 1000,
});

/** Resolves the configuration from flags and environment. */
export function loadStartConfig(flags: StartFlags, env: Record<string, string | undefined> = process.env): StartConfig {
  // [value, source]: the source is the variable's name only when the variable supplied the value.
  const pick = (flag: string | undefined, name: string): [string, string] | undefined =>
    flag !== undefined ? [flag, "flag"] : env[name] !== undefined && env[name] !== "" ? [env[name]!, name] : undefined;
  const port = pick(flags.port, "HUB_PORT");
  const rpcPort = pick(flags.rpcPort, "HUB_RPC_PORT");
  const host = pick(flags.host, "HUB_HOST");
  const dataDir = pick(flags.dataDir, "HUB_DATA_DIR");
  const databaseUrl = pick(flags.databaseUrl, "HUB_DATABASE_URL");
  const rateLimit = pick(flags.rateLimit, "HUB_RATE_LIMIT");
  const wasmWorkers = pick(flags.wasmWorkers, "HUB_WASM_WORKERS");
  const wasmGasLimit = pick(flags.wasmGasLimit, "HUB_WASM_GAS_LIMIT");
  const logKey = pick(flags.logKey, "HUB_LOG_KEY");
  const logOrigin = pick(flags.logOrigin, "HUB_LOG_ORIGIN");
  if (logOrigin && !/^[A-Za-z0-9._/:-]{1,128}$/.test(logOrigin[0])) {
    throw new ConfigError(
      `Invalid --log-origin: expected 1 to 128 of A-Z a-z 0-9 . _ / : -, got ${JSON.stringify(logOrigin[0].slice(0, 40))}`,
    );
  }
  const workBudget = pick(flags.workBudget, "HUB_WORK_BUDGET");
  const anonymousSockets = pick(flags.anonymousSockets, "HUB_ANONYMOUS_SOCKETS");
  const callerSubscriptions = pick(flags.callerSubscriptions, "HUB_CALLER_SUBSCRIPTIONS");
  const registrationLimit = pick(flags.registrationLimit, "HUB_REGISTRATION_LIMIT");
  const headersTimeout = pick(flags.headersTimeout, "HUB_HEADERS_TIMEOUT");
  const requestTimeout = pick(flags.requestTimeout, "HUB_REQUEST_TIMEOUT");
  const checkBudget = pick(flags.checkBudget, "HUB_CHECK_BUDGET");
  const witnessSpecs = flags.witness ?? (env.HUB_WITNESSES ?? "").split(/\s+/).filter(Boolean);
  const witnesses = witnessSpecs.map(witnessSpec);
  distinctWitnesses(witnesses, flags.witness !== undefined ? "--witness" : "HUB_WITNESSES");
  const quorum = pick(flags.witnessQuorum, "HUB_WITNESS_QUORUM");
  const witnessInterval = pick(flags.witnessInterval, "HUB_WITNESS_INTERVAL");
  if (quorum && witnesses.length === 0) throw new ConfigError("--witness-quorum needs at least one --witness");
  const snapshotEvery = pick(flags.snapshotEvery, "HUB_SNAPSHOT_EVERY");
  return {
    host: host?.[0] ?? DEFAULT_CONFIG.host,
    port: port ? integer(port, 0, 65535, "--port") : DEFAULT_CONFIG.port,
    rpcPort: rpcPort ? integer(rpcPort, 0, 65535, "--rpc-port") : DEFAULT_CONFIG.rpcPort,
    rpc: flags.rpc !== false,
    dataDir: dataDir?.[0] ?? DEFAULT_CONFIG.dataDir,
    databaseUrl: databaseUrl ? postgresUrl(databaseUrl) : null,
    rateLimit: rateLimit ? integer(rateLimit, 0, 1_000_000, "--rate-limit") : DEFAULT_CONFIG.rateLimit,
    wasm: flags.wasm !== false,
    wasmWorkers: wasmWorkers ? integer(wasmWorkers, 1, 256, "--wasm-workers") : DEFAULT_CONFIG.wasmWorkers,
    wasmGasLimit: wasmGasLimit
      ? integer(wasmGasLimit, 1, Number.MAX_SAFE_INTEGER, "--wasm-gas-limit")
      : DEFAULT_CONFIG.wasmGasLimit,
    logKeyFile: logKey?.[0] ?? null,
    logOrigin: logOrigin?.[0] ?? null,
    workBudget: workBudget ? integer(workBudget, 0, 60_000_000, "--work-budget") : DEFAULT_CONFIG.workBudget,
    anonymousSockets: anonymousSockets
      ? integer(anonymousSockets, 0, 1_000_000, "--anonymous-sockets")
      : DEFAULT_CONFIG.anonymousSockets,
    callerSubscriptions: callerSubscriptions
      ? integer(callerSubscriptions, 0, 1_000_000, "--caller-subscriptions")
      : DEFAULT_CONFIG.callerSubscriptions,
    registrationLimit: registrationLimit
      ? integer(registrationLimit, 0, 1_000_000, "--registration-limit")
      : DEFAULT_CONFIG.registrationLimit,
    // A big push on a slow link needs longer than the default minute; an hour is the ceiling.
    headersTimeoutMs: headersTimeout
      ? integer(headersTimeout, 100, 3_600_000, "--headers-timeout")
      : DEFAULT_CONFIG.headersTimeoutMs,
    requestTimeoutMs: requestTimeout
      ? integer(requestTimeout, 100, 3_600_000, "--request-timeout")
      : DEFAULT_CONFIG.requestTimeoutMs,
    checkBudget: checkBudget
      ? integer(checkBudget, 1, Number.MAX_SAFE_INTEGER, "--check-budget")
      : DEFAULT_CONFIG.checkBudget,
    witnesses,
    witnessQuorum: quorum ? integer(quorum, 1, witnesses.length, "--witness-quorum") : witnesses.length,
    witnessInterval: witnessInterval
      ? integer(witnessInterval, 10, 3_600_000, "--witness-interval")
      : DEFAULT_CONFIG.witnessInterval,
    snapshotEvery: snapshotEvery
      ? integer(snapshotEvery, 0, 1_000_000_000, "--snapshot-every")
      : DEFAULT_CONFIG.snapshotEvery,
  };
}

/**
 * Witnesses are counted by key: one witness given twice (two addresses, or one line pasted
 * twice) would answer both submissions, and its two cosignatures would count as two.
 */
function distinctWitnesses(witnesses: readonly { key: WitnessKey }[], source: string): void {
  const seen = new Set<string>();
  for (const { key } of witnesses) {
    const hex = key.publicKey.toString("hex");
    if (seen.has(hex)) {
      throw new ConfigError(
        `Invalid ${source}: the witness key of ${key.name} is given twice; a witness counts once towards the quorum`,
      );
    }
    seen.add(hex);
  }
}

/** `<witness verifier key>@<url>`: the key (name+id+base64, which holds no "@") and the witness's address. */
function witnessSpec(text: string): { key: WitnessKey; url: string } {
  const at = text.indexOf("@");
  const url = at < 0 ? "" : text.slice(at + 1);
  if (at < 0 || !/^https?:\/\/\S+$/.test(url)) {
    throw new ConfigError(
      `Invalid --witness ${JSON.stringify(text.slice(0, 200))}: expected <verifier key>@<http(s) url>`,
    );
  }
  try {
    return { key: parseWitnessVerifierKey(text.slice(0, at)), url: url.replace(/\/+$/, "") };
  } catch (err) {
    throw new ConfigError(`Invalid --witness ${JSON.stringify(text.slice(0, 200))}: ${(err as Error).message}`);
  }
}

function integer([text, source]: [string, string], min: number, max: number, flag: string): number {
  const n = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const from = source.startsWith("HUB_") ? `${flag} (from ${source})` : flag;
    throw new ConfigError(`Invalid ${from}: expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

function postgresUrl([text]: [string, string]): string {
  if (!/^postgres(ql)?:\/\//.test(text)) {
    throw new ConfigError(`Invalid --database-url: expected postgres://…, got ${JSON.stringify(text.slice(0, 40))}`);
  }
  return text;
}
