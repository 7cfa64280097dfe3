import type { FastifyInstance } from "fastify";
import { buildRestApp } from "./buildRestApp.js";
import { buildRpcApp } from "./buildRpcApp.js";
import type { HttpOptions } from "./HttpOptions.js";

/** Where to listen (docs/api.md); port 0 picks a free port. */
export interface ListenConfig {
  host: string;
  port: number;
  rpcPort: number;
  /** False turns the JSON-RPC port off. */
  rpc: boolean;
}

/** The listening servers: their bound URLs, and a graceful close. */
export interface RunningServers {
  restUrl: string;
  rpcUrl: string | null;
  rest: FastifyInstance;
  rpc: FastifyInstance | null;
  /** Stops accepting, lets in-flight requests finish, closes sockets. */
  close(): Promise<void>;
}

/** Starts the REST app and (unless turned off) the JSON-RPC app. */
export async function startServers(options: HttpOptions, config: ListenConfig): Promise<RunningServers> {
  const rest = await buildRestApp(options);
  const rpc = config.rpc ? await buildRpcApp(options) : null;
  try {
    const restUrl = await rest.listen({ host: config.host, port: config.port });
    const rpcUrl = rpc ? await rpc.listen({ host: config.host, port: config.rpcPort }) : null;
    return {
      restUrl,
      rpcUrl,
      rest,
      rpc,
      close: async () => {
        await Promise.all([rest.close(), rpc?.close()]);
      },
    };
  } catch (err) {
    await Promise.allSettled([rest.close(), rpc?.close()]);
    throw err;
  }
}
