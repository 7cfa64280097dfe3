/**
 * Child process of test/durability-kill.test.ts: appends commits to several contracts
 * concurrently (so group commit batches them) and prints `ack <contract> <index> <hash>`
 * after each append resolved, until it is killed. Usage: durability-appender.ts <dataDir>.
 */
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { testChain } from "./support/testChain.js";

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error("usage: durability-appender.ts <dataDir>");
const store = await SqliteStore.open({ dataDir });

async function writer(id: string): Promise<void> {
  const genesis = testChain(id, 1);
  await store.appendCommits(id, null, genesis, {
    contract: { owner: "ab".repeat(32), createdAt: 1, private: false },
  });
  process.stdout.write(`ack ${id} 0 ${genesis[0]!.hash}\n`);
  let head = genesis[0]!.hash;
  for (let index = 1; ; ) {
    const batch = testChain(id, 1 + (index % 3), head, index);
    await store.appendCommits(id, head, batch);
    for (const c of batch) process.stdout.write(`ack ${id} ${c.index} ${c.hash}\n`);
    head = batch[batch.length - 1]!.hash;
    index += batch.length;
  }
}

process.stdout.write("ready\n");
await Promise.all(["k0", "k1", "k2", "k3"].map(writer));
