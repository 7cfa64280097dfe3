/** The hub's log key: the ed25519 key that signs checkpoints, with its origin (docs/transparency.md). */
import type { KeyObject } from "node:crypto";
import { ContractError } from "../contract/ContractError.js";
import { IDENTITY_PREFIX } from "../contract/hex.js";
import { privateKeyFromSeed, publicKeyFromSeed } from "../contract/keys.js";
import { type Checkpoint, defaultOrigin, ORIGIN_PATTERN, signCheckpoint, verifierKey } from "./checkpoint.js";

/** `GET /checkpoint/key`: what a client pins. */
export interface LogKeyInfo {
  origin: string;
  public_key: string;
  verifier_key: string;
}

export class LogKey {
  readonly origin: string;
  readonly publicKey: Buffer;
  readonly #private: KeyObject;

  /** The key of a 32-byte seed; `origin` defaults to `contract-hub/<16 hex of SHA-256 of the public key>`. */
  constructor(seed: Uint8Array, origin?: string) {
    this.#private = privateKeyFromSeed(seed);
    this.publicKey = publicKeyFromSeed(seed);
    this.origin = origin ?? defaultOrigin(this.publicKey);
    if (!ORIGIN_PATTERN.test(this.origin)) {
      throw new ContractError(
        "INVALID_REQUEST",
        `Invalid log origin ${JSON.stringify(this.origin)}: 1 to 128 of A-Z a-z 0-9 . _ / : -`,
        { reason: "log_origin" },
      );
    }
  }

  /** The signed checkpoint note of a tree. */
  sign(tree: Omit<Checkpoint, "origin">): string {
    return signCheckpoint({ origin: this.origin, ...tree }, this.#private, this.publicKey);
  }

  info(): LogKeyInfo {
    return {
      origin: this.origin,
      public_key: IDENTITY_PREFIX + this.publicKey.toString("hex"),
      verifier_key: verifierKey(this.origin, this.publicKey),
    };
  }
}
