import { Actor } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error("usage: asset-kill-child.ts <dataDir>");
const hub = await openSqliteHub({ dataDir });
// The parent passes alice's seed, so it can act as the same party after the kill.
const alice = new Actor("alice", Buffer.from(process.argv[3]!, "hex"));

async function submit(id: string, method: string, value: unknown): Promise<string> {
  return (await hub.submitCommit(alice.caller, id, { contract_id: id, method, value })).result.commit_hash;
}

async function pair(i: number): Promise<void> {
  const [from, to] = [`issuer${i}`, `holder${i}`];
  for (const id of [from, to]) await hub.createContract(alice.caller, { contract_id: id, model: null, rules: [] });
  await submit(from, "create", { asset_id: "t", quantity: 1_000_000_000, divisibility: 1 });
  process.stdout.write(`ack create ${from}\n`);
  for (let n = 1; ; n++) {
    const amount = 1 + (n % 7);
    const send = await submit(from, "send", { asset_id: "t", to_contract: to, amount });
    process.stdout.write(`ack send ${from} ${to} ${send} ${amount}\n`);
    const recv = await submit(to, "recv", { send_commit_id: send });
    process.stdout.write(`ack recv ${to} ${send} ${recv}\n`);
  }
}

process.stdout.write("ready\n");
await Promise.all([0, 1, 2, 3].map(pair));
