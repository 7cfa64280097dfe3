/**
 * Several hub instances on one PostgreSQL schema, in one process: each with its own
 * PostgresStore (own pool, as separate processes would have) and its own commit relay
 * (LISTEN connection) feeding its EventBus. Also signed commit chains for pushes.
 */
import { buildWireCommit } from "../../src/contract/buildWireCommit.js";
import type { WireCommit } from "../../src/contract/Commit.js";
import { genesisData } from "../../src/contract/engine.js";
import { generateKeyPair } from "../../src/contract/keys.js";
import { Hub, type HubOptions } from "../../src/hub/Hub.js";
import type { Caller } from "../../src/hub/HubApi.js";
import { type CommitRelay, relayCommits } from "../../src/store/postgres/commitRelay.js";
import { PostgresStore } from "../../src/store/postgres/PostgresStore.js";

/** One hub instance: its hub, store and relay. */
export interface Instance {
  hub: Hub;
  store: PostgresStore;
  relay: CommitRelay;
  close(): Promise<void>;
}

/**
 * Opens a hub instance on `schema` of `url`; `errors` collects relay and subscription failures;
 * `options` are further hub options (e.g. an injected clock); `poolSize` its store's connections.
 */
export async function openInstance(
  url: string,
  schema: string,
  errors: unknown[] = [],
  options: Omit<HubOptions, "store" | "onError"> = {},
  poolSize = 6,
): Promise<Instance> {
  const store = await PostgresStore.open({ connectionString: url, schema, poolSize });
  const onError = (err: unknown) => errors.push(err);
  const hub = new Hub({ ...options, store, onError });
  // As `contract-hub start` relays: through the hub, which also announces stale proposals.
  const relay = await relayCommits(store, hub.relay, onError);
  return {
    hub,
    store,
    relay,
    close: async () => {
      await relay.close();
      await hub.close();
      await store.close();
    },
  };
}

/** A writer: an identity key that signs its commits, and the caller it authenticates as. */
export class Writer {
  readonly seed: Buffer;
  readonly key: string;
  readonly caller: Caller;

  constructor() {
    const pair = generateKeyPair();
    this.seed = pair.seed;
    this.key = pair.publicKey.toString("hex");
    this.caller = { identity: this.key, accessKey: this.key };
  }

  /** The genesis of a model-less contract owned by this writer. */
  genesis(id: string): WireCommit {
    return buildWireCommit(id, null, genesisData({ model: null, rules: [], owner: `ed25519:${this.key}` }));
  }

  /** `n` signed post commits chained after `parent`; `tag` makes rival chains differ. */
  chain(id: string, parent: string, n: number, tag = "p"): WireCommit[] {
    const out: WireCommit[] = [];
    for (let i = 0; i < n; i++) {
      const data = [{ method: "post" as const, path: `/notes/${tag}${i}.text`, value: `${tag}${i}` }];
      const c = buildWireCommit(id, parent, data, [{ key: this.seed }]);
      out.push(c);
      parent = c.hash;
    }
    return out;
  }
}
