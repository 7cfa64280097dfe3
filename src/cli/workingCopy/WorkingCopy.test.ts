import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { isContractError } from "../../contract/ContractError.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { WorkingCopy } from "./WorkingCopy.js";

const CONFIG = { hub: "http://127.0.0.1:1", contract_id: "c_0123456789abcdef01234567" };

function commit(index: number, atIndex = index): StoredCommit {
  const hash = String(index).padStart(64, "0");
  return {
    index: atIndex,
    hash,
    parent: index === 0 ? null : String(index - 1).padStart(64, "0"),
    data: [],
    signatures: {},
    timestamp: 1,
    signers: [],
  } as unknown as StoredCommit;
}

function folder(): string {
  return join(mkdtempSync(join(tmpdir(), "wc-create-")), "copy with spaces");
}

describe("WorkingCopy.create", () => {
  it("leaves no .contract/ when writing stops part-way, so init or clone can run again", () => {
    const root = folder();
    // The second commit's index is wrong: writing stops after the first file, as a crash or
    // Ctrl-C in the middle of a long clone would.
    assert.throws(() => WorkingCopy.create(root, CONFIG, [commit(0), commit(1, 5), commit(2)]));
    assert.equal(existsSync(join(root, ".contract")), false);
    assert.deepEqual(
      readdirSync(root).filter((n) => n.startsWith(".contract")),
      [],
    );
    const wc = WorkingCopy.create(root, CONFIG, [commit(0), commit(1), commit(2)]);
    assert.equal(WorkingCopy.rootOf(root), root);
    assert.deepEqual(wc.origin(), { head: commit(2).hash, length: 3 });
    assert.equal(wc.commitFiles().length, 3);
  });

  it("clears the half-built folder an interrupted run left behind", () => {
    const root = folder();
    // A process that was killed while building (its pid is beyond any pid_max).
    const stale = join(root, ".contract.4294967294.tmp");
    mkdirSync(join(stale, "commits"), { recursive: true });
    writeFileSync(join(stale, "commits", "0000000000.json"), "{}");
    WorkingCopy.create(root, CONFIG, [commit(0)]);
    assert.deepEqual(
      readdirSync(root).filter((n) => n.startsWith(".contract")),
      [".contract"],
    );
  });

  it("names a .contract/ without config.json as unfinished, not as a working copy to reset", () => {
    const root = folder();
    mkdirSync(join(root, ".contract", "commits"), { recursive: true });
    try {
      WorkingCopy.refuseExisting(root);
      assert.fail("refuseExisting accepted a folder holding .contract/");
    } catch (err) {
      assert.ok(isContractError(err));
      assert.deepEqual([err.code, err.details?.reason], ["CONFLICT", "working_copy_incomplete"]);
    }
  });
});
