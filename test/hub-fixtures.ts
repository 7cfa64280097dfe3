/** Shared fixtures of the hub tests: parties with keys, a hub on a temporary SQLite directory, signed commits. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import { computeCommitHash, signCommit } from "../src/contract/commitHash.js";
import { buildCommit, genesisData } from "../src/contract/engine.js";
import { generateKeyPair, publicKeyFromSeed } from "../src/contract/keys.js";
import type { Hub, HubOptions } from "../src/hub/Hub.js";
import type { Caller } from "../src/hub/HubApi.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import { postsAfter } from "./support/testApps.js";

/** A party: its seed, its key as stored at `.id` paths, and the caller it authenticates as. */
export class Actor {
  readonly seed: Buffer;
  readonly key: string;
  readonly identity: string;
  readonly caller: Caller;

  /** A new random party, or the one holding `seed` (e.g. the same party in another process). */
  constructor(
    readonly name: string,
    seed?: Buffer,
  ) {
    const pair = seed === undefined ? generateKeyPair() : { seed, publicKey: publicKeyFromSeed(seed) };
    this.seed = pair.seed;
    this.key = pair.publicKey.toString("hex");
    this.identity = `ed25519:${this.key}`;
    this.caller = { identity: this.key, accessKey: this.key };
  }

  /** This party's signature over a commit hash. */
  sign(hash: string): string {
    return signCommit(hash, this.seed);
  }
}

export const ESCROW = `model Escrow {
  initial init
  init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]
  deposited -> delivered [+DELIVER +signed_by(/users/seller.id)]
  delivered -> released [+RELEASE +signed_by(/users/buyer.id)]
  released -> released []
}`;

const dirs: string[] = [];

/** A fresh temporary data directory, removed by `cleanup()`. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "hub-test-"));
  dirs.push(d);
  return d;
}

/** Removes every temporary directory made by `tempDir()`. */
export function cleanup(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A hub on its own SQLite file (or `dataDir`'s). */
export function openHub(dataDir = tempDir(), options: Omit<HubOptions, "store"> = {}): Promise<Hub> {
  return openSqliteHub({ ...options, dataDir });
}

/** The escrow parties' initial state. */
export function escrowState(buyer: Actor, seller: Actor): Record<string, unknown> {
  return { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key };
}

/** A genesis commit for a push (model null unless given). */
export function genesisCommit(
  id: string,
  owner: Actor,
  model: string | null = null,
  state: Record<string, unknown> = {},
): WireCommit {
  return buildCommit(id, null, genesisData({ model, rules: [], owner: owner.identity, state }));
}

/** A commit after `parent`, signed by `signers` under their state paths (`/users/<name>.id`). */
export function signedCommit(id: string, parent: string | null, data: Operation[], signers: Actor[] = []): WireCommit {
  return buildWireCommit(
    id,
    parent,
    data,
    signers.map((a) => ({ key: a.seed, as: `/users/${a.name}.id` })),
  );
}

/** `n` unsigned post commits chained after `parent` (for contracts without a model). */
export function postChain(id: string, parent: string, n: number, tag = "p"): WireCommit[] {
  return postsAfter(id, parent, n, tag);
}

/** The signature fields of a `submitCommit` body for `data` after `parent`, signed by `signer`. */
export function signedFields(id: string, parent: string, data: Operation[], signer: Actor) {
  const hash = computeCommitHash(id, parent, data);
  return { parent, signatures: { [`/users/${signer.name}.id`]: signer.sign(hash) }, hash };
}
