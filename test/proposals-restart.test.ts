import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import { actionOp, createTreasury } from "./support/treasury.js";

describe("proposals on SQLite", () => {
  it("decides on the proposal as it is under the lock: two concurrent signs of a 2-of-2 append once, neither answered 409", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hub-proposals-"));
    const hub = await openSqliteHub({ dataDir: dir });
    try {
      for (const round of [0, 1]) {
        const t = await createTreasury(hub, `race${round}`, 2, 2);
        const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
        // Round 0: the proposer signed, and the other signer's upload arrives twice at once (a
        // retry). Round 1: nobody signed yet, and both signers upload at once.
        if (round === 0) c.head.signatures = t.signature(0, c.hash);
        await hub.propose(t.signers[0]!.caller, t.id, { commit: c });
        const signs =
          round === 0
            ? [1, 1].map((i) =>
                hub.signProposal(t.signers[i]!.caller, t.id, c.hash, { signatures: t.signature(i, c.hash) }),
              )
            : [0, 1].map((i) =>
                hub.signProposal(t.signers[i]!.caller, t.id, c.hash, { signatures: t.signature(i, c.hash) }),
              );
        const answers = await Promise.all(signs);
        // Round 0: both uploads carry the completing signature, so both see it committed. Round 1:
        // a signer decided before the other's signature was stored sees it open, missing that one.
        const statuses = answers.map((a) => a.proposal.status);
        if (round === 0) assert.deepEqual(statuses, ["committed", "committed"]);
        else
          assert.ok(
            statuses.includes("committed") && statuses.every((x) => x === "committed" || x === "open"),
            String(statuses),
          );
        assert.equal(answers.filter((a) => a.commit !== undefined).length, 1, "one answer carries the append");
        for (const a of answers.filter((x) => x.proposal.status === "committed"))
          assert.equal(a.proposal.commit_index, 1);
        const log = await hub.getLog(t.signers[0]!.caller, t.id, {});
        assert.deepEqual(
          log.commits.map((e) => e.hash),
          [t.head, c.hash],
        );
        const stored = await hub.getProposal(t.signers[0]!.caller, t.id, c.hash);
        assert.deepEqual(Object.keys(stored.proposal.signatures).sort(), ["/signers/s0.id", "/signers/s1.id"]);
      }
    } finally {
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
