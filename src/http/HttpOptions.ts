import type { Logger } from "pino";
import type { AccessRegistry } from "../auth/AccessRegistry.js";
import type { Authenticator } from "../auth/Authenticator.js";
import type { Limits } from "../contract/limits.js";
import type { HubApi } from "../hub/HubApi.js";
import type { RateLimiter } from "./RateLimiter.js";
import type { RegistrationLimit } from "./RegistrationLimit.js";

/** Defaults of `headersTimeoutMs` and `requestTimeoutMs` (docs/api.md). */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 60_000;

/** Everything the HTTP, JSON-RPC and WebSocket adapters need. */
export interface HttpOptions {
  hub: HubApi;
  authenticator: Authenticator;
  registry: AccessRegistry;
  /** Overrides of docs/security.md limits (body sizes, JSON depth, batch size). */
  limits?: Partial<Limits>;
  /** Requests per second per key (0 = off; default 500, bursts of twice that). */
  rateLimit?: number;
  /** A limiter to share (tests pin its clock); default: one per options object, built from `rateLimit`. */
  rateLimiter?: RateLimiter;
  /**
   * Behind a reverse proxy: trust its `X-Forwarded-For` for the client address that anonymous
   * requests are rate-limited by (fastify's `trustProxy`: true, or a list of proxy addresses).
   */
  trustProxy?: boolean | string;
  /** Time allowed to receive a request's line and headers, in ms (default 10,000; at most `requestTimeoutMs`). */
  headersTimeoutMs?: number;
  /** Time allowed to receive a whole request, body included, in ms (default 60,000); past it 408 `request_timeout`. */
  requestTimeoutMs?: number;
  /**
   * New identities per client address per hour, over `/register` and JSON-RPC `register`
   * (default 20; 0 = no limit). A new access key of a known identity does not count.
   */
  registrationLimit?: number;
  /** A limit to share (tests pin its clock); default: one per options object, built from `registrationLimit`. */
  registrationLimiter?: RegistrationLimit;
  /** Anonymous WebSocket connections per client address (default 100; 0 = no cap). */
  anonymousSockets?: number;
  /** Subscriptions open at once on one WebSocket connection (default 100; 0 = no cap). */
  socketSubscriptions?: number;
  /**
   * Subscriptions one caller holds at once over all its WebSocket connections: per identity,
   * per client address when anonymous (default 1,000; 0 = no cap). Counted per hub instance.
   */
  callerSubscriptions?: number;
  /** pino logger for request lines and internal errors; false for none. */
  logger?: Logger | false;
  /** Hub version reported in the WebSocket hello. */
  version?: string;
}
