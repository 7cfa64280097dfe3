/**
 * `contract-hub start` (docs/api.md): opens the store (SQLite in the data directory, or
 * PostgreSQL), starts REST and JSON-RPC, prints the bound addresses, and on SIGINT/SIGTERM
 * drains in-flight requests and closes the store.
 */
import pino from "pino";
import { AccessRegistry } from "../auth/AccessRegistry.js";
import { Authenticator } from "../auth/Authenticator.js";
import { isContractError } from "../contract/ContractError.js";
import { withLimits } from "../contract/limits.js";
import { startServers } from "../http/startServers.js";
import { Hub } from "../hub/Hub.js";
import { createWasmRunner } from "../predicates/wasmRunner.js";
import { loadLogKey } from "../store/loadLogKey.js";
import { openStore, relayStoreEvents } from "../store/openStore.js";
import type { Store } from "../store/Store.js";
import { hubOperations, type SynthesisOperations } from "../synthesis/hubOperations.js";
import { TEMPLATE_CATALOGUE } from "../templates/templateCatalogue.js";
import type { LogKey } from "../tlog/LogKey.js";
import { readLogKeyFile } from "../tlog/logKeyFile.js";
import { postAddCheckpoint } from "../witness/postAddCheckpoint.js";
import { ConfigError, loadStartConfig, type StartFlags } from "./config.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./Io.js";
import { untilSignal } from "./untilSignal.js";

export interface StartDeps {
  version: string;
  env?: Record<string, string | undefined>;
  /** Resolves when the hub should stop (default: SIGINT or SIGTERM). */
  stop?: Promise<unknown>;
}

/** Runs the hub until stopped; returns the exit code. */
export async function startCommand(flags: StartFlags, io: Io, deps: StartDeps): Promise<number> {
  const env = deps.env ?? process.env;
  let config: ReturnType<typeof loadStartConfig>;
  let synthesis: SynthesisOperations;
  try {
    config = loadStartConfig(flags, env);
    synthesis = hubOperations(env);
  } catch (err) {
    if (err instanceof ConfigError || (isContractError(err) && err.details?.reason === "bad_config")) {
      io.err(`contract-hub start: ${(err as Error).message}`);
      return EXIT_USAGE;
    }
    throw err;
  }
  // Written asynchronously: a synchronous write per request line cost the event loop 3–4 % of
  // its time under load (docs/benchmarks.md, thirteenth round). pino flushes what is buffered
  // when the process exits; only a kill -9 can lose the last lines, never a commit.
  const logger = pino(
    { level: env.HUB_LOG_LEVEL ?? "info", base: { service: "contract-hub" } },
    pino.destination({ dest: 2, sync: false }),
  );
  let store: Store;
  try {
    store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  } catch (err) {
    io.err(`contract-hub start: cannot open the store: ${(err as Error).message}`);
    return EXIT_FAILED;
  }
  let logKey: LogKey;
  try {
    // Refused (log_key_mismatch) when the store records another key as the log's: clients
    // would see this instance's checkpoints and the others' signed by two keys.
    logKey = await loadLogKey(store, {
      ...(config.logKeyFile
        ? { seed: readLogKeyFile(config.logKeyFile), source: `--log-key ${config.logKeyFile}` }
        : {}),
      ...(config.logOrigin ? { origin: config.logOrigin } : {}),
    });
  } catch (err) {
    // The reason too (log_key_mismatch, log_key_malformed…): what a script that starts the hub matches.
    const reason = isContractError(err) ? err.details?.reason : undefined;
    io.err(`contract-hub start: cannot load the log key: ${(err as Error).message}${reason ? ` (${reason})` : ""}`);
    await store.close();
    return EXIT_FAILED;
  }
  // Custom predicates run in a pool of worker threads. --no-wasm gives the engine no runner, and
  // the engine refuses to decide a commit that needs one: 503 wasm_disabled (step.ts).
  const wasm = config.wasm ? createWasmRunner({ workers: config.wasmWorkers, gasLimit: config.wasmGasLimit }) : null;
  const hub = new Hub({
    store,
    wasm,
    logKey,
    version: deps.version,
    templates: TEMPLATE_CATALOGUE,
    synthesis,
    onError: (err) => logger.error({ err }, "subscription error"),
    workBudgetMs: config.workBudget,
    limits: withLimits({ modelCheckBudget: config.checkBudget }),
    ...(config.witnesses.length > 0
      ? {
          witnesses: {
            witnesses: config.witnesses.map(({ key, url }) => ({
              key,
              url,
              submit: (body: string) => postAddCheckpoint(url, body),
            })),
            quorum: config.witnessQuorum,
            intervalMs: config.witnessInterval,
          },
        }
      : {}),
    snapshotEvery: config.snapshotEvery,
  });
  // Other instances' commits (PostgreSQL LISTEN/NOTIFY) reach this instance's subscribers.
  let stopRelay: () => Promise<void>;
  try {
    stopRelay = await relayStoreEvents(store, hub.relay, (err) => logger.warn({ err }, "commit relay"));
  } catch (err) {
    io.err(`contract-hub start: cannot listen for commits: ${(err as Error).message}`);
    await store.close();
    return EXIT_FAILED;
  }
  const options = {
    hub,
    // The hub's guarded store: a storage fault during authentication is 503 storage too.
    authenticator: new Authenticator({ store: hub.store }),
    registry: new AccessRegistry({ store: hub.store }),
    rateLimit: config.rateLimit,
    anonymousSockets: config.anonymousSockets,
    callerSubscriptions: config.callerSubscriptions,
    registrationLimit: config.registrationLimit,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    // Behind a reverse proxy (docs/security.md): "true", or the proxy addresses, comma-separated.
    ...(env.HUB_TRUST_PROXY ? { trustProxy: env.HUB_TRUST_PROXY === "true" ? true : env.HUB_TRUST_PROXY } : {}),
    logger,
    version: deps.version,
  };
  let servers: Awaited<ReturnType<typeof startServers>>;
  try {
    servers = await startServers(options, config);
  } catch (err) {
    io.err(`contract-hub start: cannot listen: ${(err as Error).message}${portHint(err, config)}`);
    await stopRelay();
    await hub.close();
    await store.close();
    return EXIT_FAILED;
  }
  io.out(`contract-hub ${deps.version}`);
  io.out(`REST      ${servers.restUrl}  (WebSocket ${servers.restUrl.replace(/^http/, "ws")}/ws)`);
  if (servers.rpcUrl) io.out(`JSON-RPC  ${servers.rpcUrl}  (WebSocket ${servers.rpcUrl.replace(/^http/, "ws")}/ws)`);
  io.out(`Store     ${config.databaseUrl ? "PostgreSQL" : `SQLite in ${config.dataDir}`}`);
  io.out(
    `WASM      ${config.wasm ? `custom predicates on, ${config.wasmWorkers} worker thread(s)` : "custom predicates off"}`,
  );
  io.out(`Log       ${logKey.info().verifier_key}`);
  if (config.witnesses.length > 0) {
    io.out(`Witnesses ${config.witnessQuorum} of ${config.witnesses.map((w) => w.key.name).join(", ")} must cosign`);
  }

  const signal = await (deps.stop ?? untilSignal());
  logger.info({ signal }, "shutting down: draining requests");
  await servers.close();
  await stopRelay();
  await hub.close();
  await store.close();
  await wasm?.close();
  logger.info("stopped");
  logger.flush();
  return EXIT_OK;
}

/** For a port already in use: which flag moves that listener elsewhere. */
export function portHint(err: unknown, config: { port: number; rpcPort: number | null }): string {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e?.code !== "EADDRINUSE") return "";
  if (e.port === config.rpcPort && config.rpcPort !== config.port) {
    return `\nThe JSON-RPC port ${config.rpcPort} is taken: pass --rpc-port PORT (0 = any free port), or --no-rpc`;
  }
  return `\nThe REST port ${e.port ?? config.port} is taken: pass --port PORT (0 = any free port)`;
}
