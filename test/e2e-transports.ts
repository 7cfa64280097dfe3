/**
 * The three transports the e2e scenario runs through: REST (HubClient), JSON-RPC over HTTP
 * (HubClient.rpc) and JSON-RPC over WebSocket (HubSocket). Each exposes the same calls by
 * JSON-RPC method name, so one scenario list drives all three; errors surface as ContractError.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { HubClient } from "../src/client/HubClient.js";
import { HubSocket } from "../src/client/HubSocket.js";
import type { WireCommit } from "../src/contract/Commit.js";
import { generateKeyPair, type RawKeyPair } from "../src/contract/keys.js";
import type { HttpOptions } from "../src/http/HttpOptions.js";
import { type RunningServers, startServers } from "../src/http/startServers.js";
import { Hub } from "../src/hub/Hub.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";

/** A party: identity key (stored at `.id` paths, signs commits) and access key (signs requests). */
export interface Party {
  name: string;
  identity: RawKeyPair;
  access: RawKeyPair;
  /** Identity key as plain hex. */
  key: string;
}

/** A call by JSON-RPC method name, as `party` (or anonymously). */
export type Call = (party: Party | null, method: string, params: Record<string, unknown>) => Promise<unknown>;

export interface Transport {
  name: string;
  call: Call;
  close(): Promise<void>;
}

/** A running hub on loopback (real Hub, SQLite in a temp dir) with REST and JSON-RPC ports. */
export interface LiveHub {
  servers: RunningServers;
  rest: HubClient;
  party(name: string): Promise<Party>;
  transports(): Promise<Transport[]>;
  close(): Promise<void>;
}

/** Starts a hub on free ports; `extra` adds to or overrides its adapter options (limits, caps). */
export async function startLiveHub(extra: Partial<HttpOptions> = {}): Promise<LiveHub> {
  const dir = mkdtempSync(join(tmpdir(), "hub-e2e-"));
  const store = await SqliteStore.open({ dataDir: dir });
  const hub = new Hub({ store });
  const servers = await startServers(
    {
      hub,
      authenticator: new Authenticator({ store }),
      registry: new AccessRegistry({ store }),
      rateLimit: 0,
      logger: false,
      ...extra,
    },
    { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: true },
  );
  const rest = new HubClient({ url: servers.restUrl, rpcUrl: servers.rpcUrl!, retries: 0 });
  const parties: Party[] = [];
  const sockets: HubSocket[] = [];
  return {
    servers,
    rest,
    async party(name) {
      const identity = generateKeyPair();
      const access = generateKeyPair();
      await rest.register(identity.seed, access.seed);
      const p = { name, identity, access, key: identity.publicKey.toString("hex") };
      parties.push(p);
      return p;
    },
    async transports() {
      const viaRest = (p: Party | null) => (p ? rest.withKey(p.access.seed) : rest);
      const socketOf = new Map<Party | null, HubSocket>();
      const ws = async (p: Party | null) => {
        let s = socketOf.get(p);
        if (!s) {
          s = await HubSocket.connect(servers.rpcUrl!, p?.access.seed);
          sockets.push(s);
          socketOf.set(p, s);
        }
        return s;
      };
      return [
        { name: "REST", call: (p, m, params) => restCall(viaRest(p), m, params), close: async () => {} },
        { name: "JSON-RPC", call: (p, m, params) => viaRest(p).rpc(m, params), close: async () => {} },
        { name: "WebSocket", call: async (p, m, params) => (await ws(p)).call(m, params), close: async () => {} },
      ];
    },
    async close() {
      for (const s of sockets) s.close();
      await servers.close();
      await hub.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The REST route of each JSON-RPC method the scenario uses. */
function restCall(c: HubClient, method: string, p: Record<string, unknown>): Promise<unknown> {
  const id = p.contract_id as string;
  switch (method) {
    case "createContract":
      return c.createContract(p);
    case "getContract":
      return c.getContract(id);
    case "getContractState":
      return c.getState(id);
    case "getLog":
      return c.getLog(id, p as { limit?: number; offset?: number });
    case "getCommit":
      return c.getCommit(id, p.hash as string);
    case "submitCommit":
      return c.submitCommit(id, p);
    case "push":
      return c.push(id, p.commits as WireCommit[]);
    case "pull":
      return c.pull(id, p as { since?: string });
    case "propose":
      return c.propose(id, p.commit as WireCommit);
    case "listProposals":
      return c.listProposals(id, p as { status?: "open" });
    case "getProposal":
      return c.getProposal(id, p.hash as string);
    case "signProposal":
      return c.signProposal(id, p.hash as string, p.signatures as Record<string, string>);
    case "withdrawProposal":
      return c.withdrawProposal(id, p.hash as string);
    case "listIncomingSends":
      return c.listIncomingSends(id, p as { pending?: boolean; limit?: number; offset?: number });
    case "grant":
      return c.grant(id, p.identity as string, p.role as "reader");
    default:
      throw new Error(`no REST mapping for ${method}`);
  }
}
