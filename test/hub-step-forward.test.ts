import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import { Hub } from "../src/hub/Hub.js";
import type { Store } from "../src/store/Store.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { Actor, cleanup, genesisCommit, signedCommit, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

/** The real store, recording the first index of every log read (a decorator, not a stand-in). */
function recordingReads(store: Store): { store: Store; starts: number[] } {
  const starts: number[] = [];
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "readCommits") {
        return (id: string, from?: number, to?: number): AsyncIterable<StoredCommit> => {
          starts.push(from ?? 0);
          return target.readCommits(id, from, to);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: proxy, starts };
}

const post = (n: number) => [{ method: "post" as const, path: `/notes/n${n}.text`, value: `note ${n}` }];

describe("a hub whose cached state falls behind the store", () => {
  after(cleanup);

  it("steps forward through the new commits instead of replaying the log", async () => {
    const dir = tempDir();
    const owner = new Actor("owner");
    const storeA = await SqliteStore.open({ dataDir: dir });
    const recorded = recordingReads(storeA);
    const hubA = new Hub({ store: recorded.store });
    const hubB = await openSqliteHub({ dataDir: dir });
    try {
      const genesis = genesisCommit("c1", owner);
      await hubA.push(owner.caller, "c1", { commits: [genesis] });
      let head = genesis.hash;
      const first = [];
      for (let i = 0; i < 5; i++) {
        const c = signedCommit("c1", head, post(i));
        first.push(c);
        head = c.hash;
      }
      await hubA.push(owner.caller, "c1", { commits: first });
      assert.equal((await hubA.getState(owner.caller, "c1")).commit_count, 6);

      // Another process (hub B, same file) appends three commits behind hub A's back.
      const more = [];
      for (let i = 5; i < 8; i++) {
        const c = signedCommit("c1", head, post(i));
        more.push(c);
        head = c.hash;
      }
      await hubB.push(owner.caller, "c1", { commits: more });

      recorded.starts.length = 0;
      const view = await hubA.getState(owner.caller, "c1");
      assert.equal(view.commit_count, 9);
      assert.equal(view.head, head);
      assert.deepEqual(recorded.starts, [6], "only the three new commits were read");
      const contract = await hubA.getContract(owner.caller, "c1");
      assert.equal(contract.state.head, head);
    } finally {
      await hubA.close();
      await storeA.close();
      await hubB.close();
    }
  });
});
