import type { FastifyInstance, FastifyRequest } from "fastify";
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
    bodyBytes: limits.bodyBytes,
    precheck: (params) => checkCountLimits(params, limits),
    onInternal: (err, method) => app.log.error({ err, method }, "INTERNAL error over /ws"),
  });
  const anonymous = anonymousSocketsFor(options);
  // Refused before the upgrade, so the client sees a 429 with Retry-After, not a closed socket.
  const releases = new WeakMap<FastifyRequest, () => void>();
  const preHandler = async (request: FastifyRequest) => {
    if (request.caller.identity !== null) return;
    anonymous.admit(request.ip, (release) => {
      request.raw.socket.once("close", release);
      releases.set(request, release);
    });
  };
  app.get("/ws", { websocket: true, config: { auth: "optional" }, preHandler }, (socket, request) => {
    const session = new SocketSession(socket, request.caller, options, request.ip);
    // Once it authenticates, the connection counts against its key, not the address's anonymous cap.
    session.onAuthenticated = releases.get(request) ?? (() => {});
    session.start(dispatcher);
  });
}
