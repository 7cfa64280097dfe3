/** Test fixtures: the REST and RPC apps over a StubHub and an in-memory key store, with a registered key. */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { AccessRegistry } from "../../auth/AccessRegistry.js";
import { Authenticator } from "../../auth/Authenticator.js";
import { MemoryAuthStore } from "../../auth/MemoryAuthStore.js";
import { registrationBody, signRequest } from "../../auth/signRequest.js";
import { generateKeyPair, type RawKeyPair } from "../../contract/keys.js";
import type { Limits } from "../../contract/limits.js";
import { buildRestApp } from "../buildRestApp.js";
import { buildRpcApp } from "../buildRpcApp.js";
import type { HttpOptions } from "../HttpOptions.js";
import { StubHub } from "./StubHub.js";

export interface TestApp {
  app: FastifyInstance;
  hub: StubHub;
  store: MemoryAuthStore;
  options: HttpOptions;
  identity: RawKeyPair;
  access: RawKeyPair;
  /** Injects a request signed with the registered access key (body sent as the exact bytes signed). */
  signed(opts: {
    method: "GET" | "POST";
    url: string;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
}

/** Builds an app (REST unless `kind` is "rpc") with one registered identity and access key. */
export async function testApp(
  kind: "rest" | "rpc" = "rest",
  extra: { limits?: Partial<Limits>; rateLimit?: number; now?: () => number } = {},
): Promise<TestApp> {
  const store = new MemoryAuthStore();
  const hub = new StubHub();
  const options: HttpOptions = {
    hub,
    authenticator: new Authenticator({ store, ...(extra.now ? { now: extra.now } : {}) }),
    registry: new AccessRegistry({ store }),
    rateLimit: extra.rateLimit ?? 0,
    logger: false,
    ...(extra.limits ? { limits: extra.limits } : {}),
  };
  const app = kind === "rest" ? await buildRestApp(options) : await buildRpcApp(options);
  await app.ready();
  const identity = generateKeyPair();
  const access = generateKeyPair();
  await options.registry.register(registrationBody(identity.seed, access.seed));
  return {
    app,
    hub,
    store,
    options,
    identity,
    access,
    signed: (o) => {
      const raw = o.raw ?? (o.body === undefined ? "" : JSON.stringify(o.body));
      const headers = { ...signRequest(access.seed, { method: o.method, url: o.url, body: raw }), ...o.headers };
      const req: InjectOptions = { method: o.method, url: o.url, headers };
      if (raw !== "") {
        req.payload = raw;
        headers["content-type"] ??= "application/json";
      }
      return app.inject(req);
    },
  };
}
