/** A threshold treasury contract for proposal tests: `n` signers at `/signers/s<i>.id`, EXECUTE needs `k` of them, SWEEP all. */
import type { Operation } from "../../src/contract/Commit.js";
import { signCommit } from "../../src/contract/commitHash.js";
import type { Hub } from "../../src/hub/Hub.js";
import { Writer } from "./pgHubs.js";

export const treasuryModel = (k: number) => `model Treasury {
  initial idle
  idle -> idle [+EXECUTE +threshold(${k}, /signers)]
  idle -> idle [+SWEEP +all_signed(/signers)]
}`;

export interface Treasury {
  id: string;
  head: string;
  signers: Writer[];
  /** `{"/signers/s<i>.id": signature}` of signer i over `hash`. */
  signature(i: number, hash: string): Record<string, string>;
}

/** Creates a treasury on `hub`, owned by signer 0. */
export async function createTreasury(hub: Hub, id: string, n: number, k: number): Promise<Treasury> {
  const signers = Array.from({ length: n }, () => new Writer());
  const state = Object.fromEntries(signers.map((s, i) => [`/signers/s${i}.id`, s.key]));
  await hub.createContract(signers[0]!.caller, { contract_id: id, model: treasuryModel(k), rules: [], state });
  const { head } = await hub.getState(signers[0]!.caller, id);
  return {
    id,
    head,
    signers,
    signature: (i, hash) => ({ [`/signers/s${i}.id`]: signCommit(hash, signers[i]!.seed) }),
  };
}

export const actionOp = (label: string, note?: string): Operation[] => [
  ...(note === undefined ? [] : [{ method: "post" as const, path: `/notes/${note}.text`, value: note }]),
  { method: "action", value: label },
];
