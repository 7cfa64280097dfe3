import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import { actionOp, createTreasury } from "./support/treasury.js";

describe("proposals on SQLite", () => {
  it("survive a restart with their signatures and complete afterwards (2 of 3)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hub-proposals-"));
    try {
      let hub = await openSqliteHub({ dataDir: dir });
      const t = await createTreasury(hub, "treasury", 3, 2);
      const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
      c.head.signatures = t.signature(1, c.hash);
      await hub.propose(t.signers[1]!.caller, t.id, { commit: c });
      await hub.close();

      hub = await openSqliteHub({ dataDir: dir });
      const { proposal } = await hub.getProposal(t.signers[0]!.caller, t.id, c.hash);
      assert.equal(proposal.status, "open");
      assert.deepEqual(Object.keys(proposal.signatures), ["/signers/s1.id"]);
      assert.deepEqual(proposal.missing, [
        { predicate: "+threshold(2, /signers)", signers: ["/signers/s0.id", "/signers/s2.id"], needed: 1 },
      ]);
      const done = await hub.signProposal(t.signers[2]!.caller, t.id, c.hash, { signatures: t.signature(2, c.hash) });
      assert.equal(done.proposal.status, "committed");
      await hub.close();

      hub = await openSqliteHub({ dataDir: dir });
      const after = await hub.getProposal(t.signers[0]!.caller, t.id, c.hash);
      assert.equal(after.proposal.status, "committed");
      assert.equal(after.proposal.commit_index, 1);
      assert.equal((await hub.getLog(t.signers[0]!.caller, t.id, {})).total, 2);
      await hub.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
