/**
 * Test fixtures of the adapters: the REST or JSON-RPC app over a real Hub on a temporary
 * SQLite store (no stand-ins: what the routes answer is what the hub decides), driven
 * in-process through fastify's `inject`, with principals registered through the real registry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { AccessRegistry } from "../../src/auth/AccessRegistry.js";
import { Authenticator } from "../../src/auth/Authenticator.js";
import { registrationBody, signRequest } from "../../src/auth/signRequest.js";
import type { WireCommit } from "../../src/contract/Commit.js";
import { buildCommit, genesisData, type WasmRunner } from "../../src/contract/engine.js";
import { generateKeyPair, type RawKeyPair } from "../../src/contract/keys.js";
import { type Limits, withLimits } from "../../src/contract/limits.js";
import { buildRestApp } from "../../src/http/buildRestApp.js";
import { buildRpcApp } from "../../src/http/buildRpcApp.js";
import type { HttpOptions } from "../../src/http/HttpOptions.js";
import type { RateLimiter } from "../../src/http/RateLimiter.js";
import type { RegistrationLimit } from "../../src/http/RegistrationLimit.js";
import type { Hub } from "../../src/hub/Hub.js";
import type { Caller, CreateContractBody } from "../../src/hub/HubApi.js";
import type { Store } from "../../src/store/Store.js";
import { hubOperations } from "../../src/synthesis/hubOperations.js";
import type { SynthesisQuota } from "../../src/synthesis/SynthesisQuota.js";
import { TEMPLATE_CATALOGUE } from "../../src/templates/templateCatalogue.js";
import { openSqliteHub } from "./openSqliteHub.js";

/** A registered identity with one access key. */
export interface Principal {
  identity: RawKeyPair;
  access: RawKeyPair;
  /** Identity key, lower-case hex (as stored at `.id` paths and in grants). */
  key: string;
  /** The caller the hub sees for this principal's signed requests. */
  caller: Caller;
}

export interface SignedInject {
  method: "GET" | "POST" | "HEAD" | "DELETE";
  url: string;
  body?: unknown;
  /** Exact body text (wins over `body`). */
  raw?: string;
  headers?: Record<string, string>;
  /** Who signs (default: the app's first principal). */
  as?: Principal;
}

export interface TestApp {
  app: FastifyInstance;
  hub: Hub;
  options: HttpOptions;
  /** The first registered principal. */
  owner: Principal;
  /** Registers a new identity with a fresh access key. */
  principal(): Promise<Principal>;
  /** Injects a request signed by `as` (default: owner), the body sent as the exact bytes signed. */
  signed(opts: SignedInject): Promise<LightMyRequestResponse>;
  /** Creates a contract through the hub as `as` (default: owner); returns its genesis hash too. */
  contract(body?: CreateContractBody, as?: Principal): Promise<{ id: string; head: string }>;
  /** Closes the app and the hub and removes the store. */
  close(): Promise<void>;
}

export interface TestAppOptions {
  limits?: Partial<Limits>;
  rateLimit?: number;
  /** A limiter with a pinned clock (wins over `rateLimit`). */
  rateLimiter?: RateLimiter;
  now?: () => number;
  /** New identities per address per hour over `/register` (default: the hub's, 20). */
  registrationLimit?: number;
  /** A registration limit with a pinned clock (wins over `registrationLimit`). */
  registrationLimiter?: RegistrationLimit;
  /** The hub's clock, in integer seconds (default: the real one). */
  hubNow?: () => number;
  /** Environment of the synthesis operations (default: none, so the pattern synthesizer answers). */
  env?: Record<string, string | undefined>;
  quota?: SynthesisQuota;
  /** The hub's expensive work per caller, CPU-milliseconds a minute (default: the hub's). */
  workBudgetMs?: number;
  /** Give the hub synthesis and the template catalogue as `contract-hub start` does (default true). */
  extras?: boolean;
  /** The hub's custom-predicate runner (default: none, so every custom predicate is false). */
  wasm?: WasmRunner;
  /** Puts a test's wrapper (noting some calls) between the hub and the real store. */
  wrapStore?: (store: Store) => Store;
  /** Trust `X-Forwarded-For` as a reverse proxy's (default: no; the socket's address counts). */
  trustProxy?: boolean;
  /** Anonymous WebSocket connections per client address (default: the hub's, 100). */
  anonymousSockets?: number;
}

/** Builds an app (REST unless `kind` is "rpc") over a real hub, with one registered principal. */
export async function testApp(kind: "rest" | "rpc" = "rest", extra: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), "hub-http-test-"));
  const hub = await openSqliteHub({
    dataDir: dir,
    ...(extra.extras === false
      ? {}
      : { templates: TEMPLATE_CATALOGUE, synthesis: hubOperations(extra.env ?? {}, extra.quota) }),
    ...(extra.limits ? { limits: withLimits(extra.limits) } : {}),
    ...(extra.hubNow ? { now: extra.hubNow } : {}),
    ...(extra.workBudgetMs !== undefined ? { workBudgetMs: extra.workBudgetMs } : {}),
    ...(extra.wasm ? { wasm: extra.wasm } : {}),
    ...(extra.wrapStore ? { wrapStore: extra.wrapStore } : {}),
  });
  const options: HttpOptions = {
    hub,
    authenticator: new Authenticator({ store: hub.store, ...(extra.now ? { now: extra.now } : {}) }),
    registry: new AccessRegistry({ store: hub.store }),
    rateLimit: extra.rateLimit ?? 0,
    ...(extra.rateLimiter ? { rateLimiter: extra.rateLimiter } : {}),
    ...(extra.registrationLimit !== undefined ? { registrationLimit: extra.registrationLimit } : {}),
    ...(extra.registrationLimiter ? { registrationLimiter: extra.registrationLimiter } : {}),
    ...(extra.trustProxy !== undefined ? { trustProxy: extra.trustProxy } : {}),
    ...(extra.anonymousSockets !== undefined ? { anonymousSockets: extra.anonymousSockets } : {}),
    logger: false,
    ...(extra.limits ? { limits: extra.limits } : {}),
  };
  const app = kind === "rest" ? await buildRestApp(options) : await buildRpcApp(options);
  await app.ready();

  const principal = async (): Promise<Principal> => {
    const identity = generateKeyPair();
    const access = generateKeyPair();
    await options.registry.register(registrationBody(identity.seed, access.seed));
    const key = identity.publicKey.toString("hex");
    return { identity, access, key, caller: { identity: key, accessKey: access.publicKey.toString("hex") } };
  };
  const owner = await principal();

  return {
    app,
    hub,
    options,
    owner,
    principal,
    signed: (o) => {
      const raw = o.raw ?? (o.body === undefined ? "" : JSON.stringify(o.body));
      const signer = (o.as ?? owner).access.seed;
      const headers = { ...signRequest(signer, { method: o.method, url: o.url, body: raw }), ...o.headers };
      const req: InjectOptions = { method: o.method, url: o.url, headers };
      if (raw !== "") {
        req.payload = raw;
        headers["content-type"] ??= "application/json";
      }
      return app.inject(req);
    },
    contract: async (body = { model: null, rules: [] }, as = owner) => {
      const { contract_id } = await hub.createContract(as.caller, body);
      const state = await hub.getState(as.caller, contract_id);
      return { id: contract_id, head: state.head };
    },
    close: async () => {
      await app.close();
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A genesis commit owned by `owner` for a push creating `id` (initial posts in `state`). */
export function genesisFor(id: string, owner: Principal, state: Record<string, unknown> = {}): WireCommit {
  return buildCommit(id, null, genesisData({ model: null, rules: [], owner: owner.key, state }));
}

/** `n` unsigned post commits after `parent` (contracts without a model accept them from writers). */
export function postsAfter(id: string, parent: string, n: number, tag = "n"): WireCommit[] {
  const out: WireCommit[] = [];
  for (let i = 0; i < n; i++) {
    const c = buildCommit(id, parent, [{ method: "post", path: `/notes/${tag}${i}.text`, value: `${tag}${i}` }]);
    out.push(c);
    parent = c.hash;
  }
  return out;
}
