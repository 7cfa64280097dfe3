/**
 * A writer of the reliability harnesses: an identity key and an access key drawn from the
 * harness seed (so a replayed seed rebuilds the same commits), registered with the hub, and
 * signed commit chains with distinct payloads.
 */

import { HubClient } from "../../../src/client/HubClient.js";
import { buildWireCommit } from "../../../src/contract/buildWireCommit.js";
import type { WireCommit } from "../../../src/contract/Commit.js";
import { genesisData } from "../../../src/contract/engine.js";
import { publicKeyFromSeed } from "../../../src/contract/keys.js";
import type { Rng } from "./seeded.js";

export class Party {
  readonly seed: Buffer;
  readonly accessSeed: Buffer;
  /** Identity, lower-case hex. */
  readonly key: string;

  constructor(rng: Rng) {
    this.seed = rng.bytes(32);
    this.accessSeed = rng.bytes(32);
    this.key = publicKeyFromSeed(this.seed).toString("hex");
  }

  get identity(): string {
    return `ed25519:${this.key}`;
  }

  /** Registers the key pair with the hub at `url` (once per data directory). */
  async register(url: string): Promise<void> {
    await new HubClient({ url }).register(this.seed, this.accessSeed);
  }

  /** A client of `url` (and `rpcUrl`) signing requests with this party's access key. */
  client(url: string, rpcUrl?: string): HubClient {
    return new HubClient({ url, ...(rpcUrl ? { rpcUrl } : {}), accessKey: this.accessSeed, retries: 0 });
  }

  /** The genesis of a model-less contract owned by this party. */
  genesis(id: string): WireCommit {
    return buildWireCommit(id, null, genesisData({ model: null, rules: [], owner: this.identity }));
  }

  /** `n` commits signed by this party chained after `parent`; `tag` makes every chain distinct. */
  chain(id: string, parent: string, n: number, tag: string): WireCommit[] {
    const out: WireCommit[] = [];
    for (let i = 0; i < n; i++) {
      const data = [{ method: "post" as const, path: `/log/${tag}-${i}.text`, value: `${tag}-${i}` }];
      const c = buildWireCommit(id, parent, data, [{ key: this.seed }]);
      out.push(c);
      parent = c.hash;
    }
    return out;
  }
}
