/**
 * The fastify instance both ports share: our JSON parser (raw bytes kept for signatures),
 * TypeBox validation, plain JSON output, per-route authentication, rate limiting, one log
 * line per request, and one error handler that maps everything through the error table.
 */

import { maxHeaderSize, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import websocket from "@fastify/websocket";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import { Authenticator } from "../auth/Authenticator.js";
import { ContractError } from "../contract/ContractError.js";
import { withLimits } from "../contract/limits.js";
import { ANONYMOUS, type Caller } from "../hub/HubApi.js";
import { clientAddressKey } from "./clientAddressKey.js";
import { clientErrorAnswer } from "./clientErrorAnswer.js";
import { decodeJsonBody } from "./decodeJsonBody.js";
import { httpStatusOf, errorBody as restErrorBody } from "./errorTable.js";
import { HEADERS_TIMEOUT_MS, type HttpOptions, REQUEST_TIMEOUT_MS } from "./HttpOptions.js";
import { limiterFor } from "./RateLimiter.js";
import { toContractError } from "./toContractError.js";
import { validatorCompiler } from "./validatorCompiler.js";

/** How a route authenticates: `required` (401 without), `optional` (anonymous allowed), `none`. */
export type AuthMode = "required" | "optional" | "none";

/** One route as the router holds it (HEAD routes fastify adds for GETs included). */
export interface RegisteredRoute {
  method: string;
  url: string;
  auth: AuthMode;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route of this app, in registration order (the authorization matrix test walks it). */
    registeredRoutes: RegisteredRoute[];
  }
  interface FastifyRequest {
    caller: Caller;
    rawBody: Buffer;
    /**
     * The key of the client's address in every per-address limit (clientAddressKey: an
     * IPv6 client's /64, an IPv4-mapped address's IPv4): use it, never `ip`, for a limit.
     */
    readonly clientAddress: string;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Keep the body as raw bytes (the JSON-RPC route parses it itself to answer -32700). */
    rawBodyOnly?: boolean;
    /** The request's nonce is left to its append's transaction (see spendingNonce). */
    nonceInAppend?: boolean;
  }
}

const EMPTY = Buffer.alloc(0);

/** After refusing a request the parser could not read, how long its connection may still drain. */
const DRAIN_MS = 2_000;

/**
 * A refusal of the router, before any route runs: a path parameter longer than the router
 * keeps (100 characters; no id or hash is longer than 64) or a malformed percent-escape.
 */
function routerError(err: { code?: string }): ContractError {
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH")
    return new ContractError("INVALID_REQUEST", "Invalid URL: a path segment is longer than 100 characters", {
      reason: "path_param_too_long",
      limit: 100,
    });
  if (err.code === "FST_ERR_BAD_URL")
    return new ContractError("INVALID_REQUEST", "Invalid URL: the path holds a malformed percent-escape", {
      reason: "bad_url",
    });
  return new ContractError("INTERNAL", "Internal error");
}

/** Creates the shared fastify instance; `errorBody` shapes error responses (REST or JSON-RPC). */
export async function createBaseApp(
  options: HttpOptions,
  errorBody: (err: ContractError) => unknown = restErrorBody,
): Promise<FastifyInstance> {
  const limits = withLimits(options.limits);
  // A request must arrive in time: without these, headers and a promised body that trickle in
  // (or never come) hold a connection for as long as the client likes.
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout);
  const answered = new WeakSet<Socket>();
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // One line per request, written by the onResponse hook below instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: limits.bodyBytes,
    // Fastify's own 503 during shutdown has a body outside the error table (no `code`); the
    // onRequest hook below answers those requests in the table's form instead.
    return503OnClosing: false,
    requestTimeout,
    http: {
      headersTimeout,
      // Node checks the two timeouts on this period (30 s by default, which would let a
      // stalled request overstay its limit by that much).
      connectionsCheckingInterval: Math.min(5_000, Math.max(100, Math.floor(headersTimeout / 10))),
    },
    // What Node's parser refuses before any route (bad request line or header, bad framing,
    // headers too large, a timeout) answers in the error table's form too, naming the reason.
    clientErrorHandler: (err, socket) => {
      // A reset connection cannot be answered; a socket answered once ignores the parser's
      // further complaints about the bytes still arriving.
      if ((err as { code?: string }).code === "ECONNRESET" || socket.destroyed || answered.has(socket)) return;
      answered.add(socket);
      const { status, error } = clientErrorAnswer(err as { code?: string }, maxHeaderSize);
      app.log.info({ code: (err as { code?: string }).code, reason: error.details?.reason, status }, "client error");
      if (socket.writable) {
        const body = JSON.stringify(errorBody(error));
        socket.end(
          `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      // Closing with unread bytes would reset the connection and lose the answer (a 100 KB
      // URL is still being sent when its first 16 KB overflow): read and drop the rest for a
      // moment, then close.
      socket.resume();
      setTimeout(() => socket.destroy(), DRAIN_MS).unref();
    },
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    // The router's own refusals answer in the error table's form too (fastify's would be a
    // 414 or 400 with codes of its own).
    frameworkErrors: (err, _request, reply) => {
      const mapped = routerError(err);
      (reply as FastifyReply).code(httpStatusOf(mapped)).type("application/json").send(errorBody(mapped));
    },
  });
  const routes: RegisteredRoute[] = [];
  app.decorate("registeredRoutes", routes);
  app.addHook("onRoute", (route) => {
    const auth = route.config?.auth ?? "optional";
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, auth });
  });
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the API; bodies are written as-is so no field is ever dropped.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.decorateRequest("caller", null as unknown as Caller);
  app.decorateRequest("rawBody", null as unknown as Buffer);
  // Derived from `ip` on each read (it may be X-Forwarded-For's, under trustProxy), so no hook
  // order can leave it unset; a request reads it two or three times, a few string checks each.
  app.decorateRequest("clientAddress", {
    getter(this: FastifyRequest) {
      return clientAddressKey(this.ip);
    },
  });
  app.removeAllContentTypeParsers();
  // Any content type is read as JSON: clients authenticate by signature, not by cookie. The
  // bytes are only kept here; they are parsed once the caller is known (below).
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    request.rawBody = body as Buffer;
    done(null, body);
  });

  // A request that arrives while the app closes (pipelined behind an in-flight one, or on a
  // connection the drain still waits for) is refused before any work; fastify has already
  // marked its connection to close.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async () => {
    if (closing) {
      throw new ContractError("UNAVAILABLE", "The hub is shutting down; retry on another instance or later", {
        reason: "shutting_down",
        retry_after: 1,
      });
    }
  });

  const limiter = limiterFor(options);
  // Requests that will not be charged to a verified key count against their address before
  // the body is read or parsed. Credentials only defer that charge on a route that checks
  // them: on one that ignores them (`/register`, `/templates`, `/health`, …) a junk
  // `X-Hub-Key` would otherwise escape every limit.
  const keyWillPay = (request: FastifyRequest) =>
    request.routeOptions.config.auth !== "none" && Authenticator.hasCredentials(request.headers);
  app.addHook("onRequest", async (request) => {
    if (!keyWillPay(request)) limiter.takeAddress(request.clientAddress);
  });
  // Who the caller is comes before what it sent: a body is parsed only once its signature
  // checked out (a forged one costs a verify, not a parse of up to 16 MiB), in slices charged
  // to the caller's work budget when it is long (docs/security.md).
  app.addHook("preValidation", async (request) => {
    request.rawBody ??= EMPTY;
    // A failed authentication counts against the address, so forged signatures cannot be
    // tried without limit; a verified one against its access key.
    try {
      // The address goes with the caller: anonymous callers' expensive work is budgeted by it.
      // Field by field: a spread followed by more fields is V8's slow path on Node 20.
      const resolved = await resolveCaller(options, request);
      const caller: Caller = {
        identity: resolved.identity,
        accessKey: resolved.accessKey,
        address: request.clientAddress,
      };
      if (resolved.nonce !== undefined) caller.nonce = resolved.nonce;
      request.caller = caller;
    } catch (err) {
      limiter.takeAddress(request.clientAddress);
      throw err;
    }
    // A verified request spends its key's token and its identity's: more keys buy no more requests.
    if (request.caller.accessKey !== null) limiter.take(request.caller.accessKey, request.caller.identity);
    // Credentials that identified no key (none should pass): the address pays after all.
    else if (keyWillPay(request)) limiter.takeAddress(request.clientAddress);
    if (!request.routeOptions.config.rawBodyOnly && request.body !== undefined) {
      request.body = await decodeJsonBody(request.rawBody, limits, options.hub.ticker(request.caller));
    }
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        key: request.caller?.accessKey ?? undefined,
      },
      "request",
    );
  });

  app.setErrorHandler((err, request, reply) => {
    const mapped = toContractError(err, request.routeOptions?.bodyLimit);
    if (httpStatusOf(mapped) >= 500) request.log.error({ err }, `${mapped.code} error`);
    const retryAfter = mapped.details?.retry_after;
    if ((mapped.code === "RATE_LIMITED" || mapped.code === "UNAVAILABLE") && typeof retryAfter === "number")
      reply.header("retry-after", String(retryAfter));
    reply.code(httpStatusOf(mapped)).type("application/json").send(errorBody(mapped));
  });
  app.setNotFoundHandler((request, reply) => {
    const err = new ContractError("NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0]}`, {
      reason: "no_route",
    });
    reply.code(404).type("application/json").send(errorBody(err));
  });
  await app.register(websocket, {
    options: { maxPayload: limits.pushBodyBytes },
    // A frame ws refuses (not UTF-8, over the size limit, bad framing) is the client's error:
    // ws answers it with its close code (1007, 1009, 1002) and closes; logged, not as the hub's.
    errorHandler: (err, socket, request) => {
      const code = (err as { code?: string }).code;
      if (code?.startsWith("WS_ERR_")) {
        request.log.info({ code, message: err.message }, "client error over /ws");
        return;
      }
      request.log.error({ err }, "INTERNAL error over /ws");
      socket.terminate();
    },
  });
  // The pino instance narrows the logger type; callers only need the default instance type.
  return app as unknown as FastifyInstance;
}

async function resolveCaller(options: HttpOptions, request: FastifyRequest): Promise<Caller> {
  const mode = request.routeOptions.config.auth ?? "optional";
  if (mode === "none") return ANONYMOUS;
  const signed = { method: request.method, url: request.url, headers: request.headers, body: request.rawBody };
  const how = { deferNonce: request.routeOptions.config.nonceInAppend === true };
  return mode === "required"
    ? options.authenticator.authenticate(signed, how)
    : options.authenticator.identify(signed, how);
}
