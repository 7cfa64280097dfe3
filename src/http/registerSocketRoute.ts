import type { FastifyInstance } from "fastify";
import { withLimits } from "../contract/limits.js";
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
    bodyBytes: limits.bodyBytes,
    precheck: (params) => checkCountLimits(params, limits),
    onInternal: (err, method) => app.log.error({ err, method }, "INTERNAL error over /ws"),
  });
  app.get("/ws", { websocket: true, config: { auth: "optional" } }, (socket, request) => {
    new SocketSession(socket, request.caller, options, request.ip).start(dispatcher);
  });
}
