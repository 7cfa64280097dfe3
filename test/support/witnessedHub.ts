/**
 * A hub process that requires witness cosignatures, for the explorer's tests: one real
 * `contract-hub witness` process, and a second witness the hub names whose process is gone
 * (so the served checkpoint carries nothing of it), quorum 1; a public contract of three
 * commits; resolved once the witness has cosigned the whole tree, so the served checkpoint
 * covers the contract's head.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HubClient } from "../../src/client/HubClient.js";
import { encodeHex } from "../../src/contract/hex.js";
import { publicKeyFromSeed } from "../../src/contract/keys.js";
import { LogKey } from "../../src/tlog/LogKey.js";
import { type HubProcess, startHub } from "./hubProcess.js";
import { Writer } from "./pgHubs.js";
import { startWitness, type WitnessProcess } from "./witnessProcess.js";

export interface WitnessedHub {
  hub: HubProcess;
  /** The running witness, named `witness.test/one`. */
  witness: WitnessProcess;
  /** The stopped witness, named `witness.test/gone`. */
  gone: WitnessProcess;
  /** The contract's id; its three commits are the whole tree. */
  contractId: string;
  treeSize: number;
}

/** The witness sizes `GET /checkpoint/key` reports. */
export interface WitnessesDoc {
  quorum: number;
  cosigned_size: number | null;
  witnesses: { name: string; verifier_key: string; url: string; cosigned_size: number | null; error: string | null }[];
}

export const witnessesOf = async (hubUrl: string): Promise<WitnessesDoc> =>
  ((await (await fetch(`${hubUrl}/checkpoint/key`)).json()) as { witnesses: WitnessesDoc }).witnesses;

/** Starts it all under `dir`; stop it with killAllHubs and killAllWitnesses. */
export async function startWitnessedHub(dir: string): Promise<WitnessedHub> {
  // The log key is written before the hub starts, so the witnesses can be told it.
  mkdirSync(join(dir, "hub"), { recursive: true });
  const seed = randomBytes(32);
  writeFileSync(
    join(dir, "hub", "log-key.json"),
    JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
  );
  const logVerifierKey = new LogKey(seed).info().verifier_key;
  const witness = await startWitness(join(dir, "w1"), [logVerifierKey], ["--name", "witness.test/one"]);
  const gone = await startWitness(join(dir, "w2"), [logVerifierKey], ["--name", "witness.test/gone"]);
  await gone.stop();
  const hub = await startHub(join(dir, "hub"), [
    ...[witness, gone].flatMap((w) => ["--witness", `${w.verifierKey}@${w.url}`]),
    "--witness-quorum",
    "1",
    "--witness-interval",
    "100",
  ]);
  const writer = new Writer();
  const client = new HubClient({ url: hub.url, accessKey: writer.seed });
  await client.register(writer.seed, writer.seed);
  const contractId = `c${randomBytes(6).toString("hex")}`;
  const genesis = writer.genesis(contractId);
  await client.push(contractId, [genesis, ...writer.chain(contractId, genesis.hash, 2)]);
  const treeSize = 3;
  // Bounded: 30 s.
  for (let i = 0; i < 300 && (await witnessesOf(hub.url)).cosigned_size !== treeSize; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await witnessesOf(hub.url)).cosigned_size, treeSize, "the witness never cosigned the tree");
  return { hub, witness, gone, contractId, treeSize };
}
