/**
 * Commit timestamps across hub instances on one PostgreSQL schema (docs/protocol.md, "Commit
 * timestamps"): each instance reads its own clock (injected here, one behind the other), yet
 * along a contract's log the timestamps never decrease, whichever instance appended.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";

const db = await testDatabase();
const open: Instance[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

async function timestamps(x: Instance, id: string): Promise<number[]> {
  const record = (await x.store.getContract(id))!;
  const out: number[] = [];
  for await (const c of x.store.readCommits(id, 0, record.length)) out.push(c.timestamp);
  return out;
}

const nonDecreasing = (ts: number[]) => ts.every((t, i) => i === 0 || t >= ts[i - 1]!);

describe("PostgreSQL: commit timestamps with instances whose clocks differ", { timeout: 120_000 }, () => {
  it("never stamps a commit earlier than its parent, whichever instance appends it", async () => {
    const schema = db.freshSchema();
    const ahead = await openInstance(db.url, schema, [], { now: () => 9_000_100 });
    const behind = await openInstance(db.url, schema, [], { now: () => 9_000_000 });
    open.push(ahead, behind);
    const w = new Writer();
    await ahead.hub.createContract(w.caller, { contract_id: "two-clocks", model: null, rules: [], state: {} });

    // Alternating instances; the one behind first reads the head the other one stored.
    let head = (await behind.hub.getState(w.caller, "two-clocks")).head;
    for (let i = 0; i < 3; i++) {
      const [b] = w.chain("two-clocks", head, 1, `b${i}`);
      assert.equal((await behind.hub.submitCommit(w.caller, "two-clocks", { commit: b! })).result.timestamp, 9_000_100);
      const pushed = w.chain("two-clocks", b!.hash, 2, `a${i}`);
      assert.equal((await ahead.hub.push(w.caller, "two-clocks", { commits: pushed })).pushed, 2);
      head = pushed[1]!.hash;
    }
    // Racing writes where the hub picks the parent (a loser is decided again on the new head).
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? ahead : behind).hub.submitCommit(w.caller, "two-clocks", {
          method: "post",
          path: `/race/r${i}.text`,
          value: `r${i}`,
        }),
      ),
    );
    const ts = await timestamps(behind, "two-clocks");
    assert.equal(ts.length, 1 + 3 * 3 + 6);
    assert.equal(nonDecreasing(ts), true, `timestamps went back: ${ts.join(", ")}`);
    assert.deepEqual(new Set(ts), new Set([9_000_100]));
  });
});
