import { randomBytes } from "node:crypto";
import { publicKeyFromSeed } from "../../src/contract/keys.js";

/** A test party: an ed25519 seed and its public key in hex. */
export class Party {
  readonly seed: Uint8Array;
  readonly key: string;

  constructor(
    readonly name: string,
    seed: Uint8Array = randomBytes(32),
  ) {
    this.seed = seed;
    this.key = publicKeyFromSeed(seed).toString("hex");
  }

  /** `ed25519:<hex>` */
  get identity(): string {
    return `ed25519:${this.key}`;
  }
}
