import type { FastifyInstance } from "fastify";
import { Responses } from "../api/schemas.js";
import { withLimits } from "../contract/limits.js";
import { VERSION } from "../lib/version.js";
import { closeSignal } from "./closeSignal.js";
import { checkCountLimits } from "./countLimits.js";
import { createBaseApp } from "./createBaseApp.js";
import type { HttpOptions } from "./HttpOptions.js";
import { registrationLimitFor } from "./RegistrationLimit.js";
import { failure, RpcDispatcher, toRpcError } from "./RpcDispatcher.js";
import { registerSocketRoute } from "./registerSocketRoute.js";
import { RPC_METHODS } from "./rpcMethods.js";

/** The JSON-RPC app (docs/api.md): `POST /`, `GET /health` and `/ws`. */
export async function buildRpcApp(options: HttpOptions): Promise<FastifyInstance> {
  const limits = withLimits(options.limits);
  // Transport failures (body too large, bad auth headers) still answer in JSON-RPC form.
  const app = await createBaseApp(options, (err) => failure(null, toRpcError(err)));
  const dispatcher = new RpcDispatcher(RPC_METHODS, {
    maxBatch: limits.rpcBatch,
    maxDepth: limits.jsonDepth,
    maxContainers: limits.jsonContainers,
    bodyBytes: limits.bodyBytes,
    precheck: (params) => checkCountLimits(params, limits),
    onInternal: (err, method) => app.log.error({ err, method }, "INTERNAL error in JSON-RPC"),
  });
  // New identities per address, shared with the REST port and the WebSockets of these options.
  const registrations = registrationLimitFor(options);
  app.post(
    "/",
    { bodyLimit: limits.pushBodyBytes, config: { auth: "optional", rawBodyOnly: true } },
    async (request, reply) => {
      let signal: AbortSignal | undefined;
      // The longest wait of the refused calls, sent as Retry-After beside the 200.
      let wait = 0;
      const ctx = {
        hub: options.hub,
        registry: options.registry,
        caller: request.caller,
        version: options.version ?? VERSION,
        get signal() {
          signal ??= closeSignal(reply.raw);
          return signal;
        },
        retryAfter: (seconds: number) => {
          wait = Math.max(wait, seconds);
        },
        admitNewIdentity: () => registrations.take(request.clientAddress),
      };
      const answer = await dispatcher.handleBytes(request.rawBody, ctx);
      if (wait > 0) reply.header("retry-after", String(wait));
      if (answer === null) return reply.code(204).send();
      return reply.code(200).type("application/json").send(answer);
    },
  );
  app.get(
    "/health",
    { config: { auth: "none" }, schema: { response: { 200: Responses.health, 503: Responses.health } } },
    async (_, reply) => {
      const health = await options.hub.health();
      return reply.code(health.status === "ok" ? 200 : 503).send(health);
    },
  );
  registerSocketRoute(app, options);
  return app;
}
