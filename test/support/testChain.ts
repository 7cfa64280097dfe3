import type { Operation } from "../../src/contract/Commit.js";
import { computeCommitHash } from "../../src/contract/commitHash.js";
import type { StoredCommit } from "../../src/contract/StoredCommit.js";

/** Test helper: `n` stored commits chained after `parent` at `start` (a genesis first when parent is null); `salt` makes a distinct fork. */
export function testChain(
  contractId: string,
  n: number,
  parent: string | null = null,
  start = 0,
  salt = "",
): StoredCommit[] {
  const out: StoredCommit[] = [];
  for (let i = 0; i < n; i++) {
    const index = start + i;
    const data: Operation[] =
      index === 0
        ? [{ method: "genesis", value: { model: null, rules: [], owner: "ab".repeat(32) } }]
        : [{ method: "post", path: "/n.json", value: `${salt}${index}` }];
    const hash = computeCommitHash(contractId, parent, data);
    out.push({ index, hash, parent, data, signatures: {}, timestamp: 1_700_000_000 + index, signers: [] });
    parent = hash;
  }
  return out;
}
