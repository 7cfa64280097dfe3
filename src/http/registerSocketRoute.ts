import type { FastifyInstance, FastifyRequest } from "fastify";
import { ContractError } from "../contract/ContractError.js";
import { withLimits } from "../contract/limits.js";
import { anonymousSocketsFor } from "./AnonymousSockets.js";
import { checkCountLimits } from "./countLimits.js";
import type { HttpOptions } from "./HttpOptions.js";
import { RpcDispatcher } from "./RpcDispatcher.js";
import { SOCKET_METHODS, type SocketContext, SocketSession } from "./SocketSession.js";

/** Adds `GET /ws`: JSON-RPC over WebSocket with subscriptions (signed upgrade headers authenticate it too). */
export function registerSocketRoute(app: FastifyInstance, options: HttpOptions): void {
  const limits = withLimits(options.limits);
  const dispatcher = new RpcDispatcher<SocketContext>(SOCKET_METHODS, {
    maxBatch: limits.rpcBatch,
    maxDepth: limits.jsonDepth,
    maxContainers: limits.jsonContainers,
    bodyBytes: limits.bodyBytes,
    precheck: (params) => checkCountLimits(params, limits),
    onInternal: (err, method) => app.log.error({ err, method }, "INTERNAL error over /ws"),
  });
  const anonymous = anonymousSocketsFor(options);
  // Refused before the upgrade, so the client sees a 429 with Retry-After, not a closed socket.
  // Only an upgrade counts: a plain GET (which may be one of many on a keep-alive connection)
  // holds no slot.
  const releases = new WeakMap<FastifyRequest, () => void>();
  const preHandler = async (request: FastifyRequest) => {
    if (!request.ws || request.caller.identity !== null) return;
    anonymous.admit(request.clientAddress, (release) => {
      request.raw.socket.once("close", release);
      releases.set(request, release);
    });
  };
  app.route({
    method: "GET",
    url: "/ws",
    config: { auth: "optional" },
    preHandler,
    // A GET without the upgrade is answered in the error table's form, not with an empty 404.
    handler: async () => {
      throw new ContractError("INVALID_REQUEST", "GET /ws is a WebSocket endpoint: send an upgrade request", {
        reason: "websocket_upgrade_required",
      });
    },
    wsHandler: (socket, request) => {
      const session = new SocketSession(socket, request.caller, options, request.clientAddress);
      // Once it authenticates, the connection counts against its key, not the address's anonymous cap.
      session.onAuthenticated = releases.get(request) ?? (() => {});
      session.start(dispatcher);
    },
  });
}
