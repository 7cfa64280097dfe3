/**
 * Jepsen's set checker over a history of pushes (anchors §B.2): every attempted push is
 * recorded with its outcome, `ok` (acknowledged), `fail` (a definite refusal: nothing
 * stored) or `info` (indeterminate: the connection died). After recovery the stored logs are
 * read and compared with the history.
 */
import type { PulledCommit } from "../../../src/contract/Commit.js";
import { computeCommitHash } from "../../../src/contract/commitHash.js";

export type Outcome = "ok" | "fail" | "info";

/** One push or single-commit POST: all its commits are stored, or none (PROTOCOL.md §5). */
export interface Attempt {
  contract: string;
  hashes: string[];
  outcome: Outcome;
}

export interface SetReport {
  /** Commits acknowledged. */
  acked: number;
  /** Acknowledged but absent: must be 0. */
  lost: number;
  /** Present but never attempted: must be 0. */
  unexpected: number;
  /** Present although the hub refused them: must be 0. */
  refusedButStored: number;
  /** Indeterminate attempts of which some but not all commits are present: must be 0. */
  torn: number;
  /** Indeterminate commits that turned out stored (allowed). */
  recovered: number;
  /** Indeterminate commits that turned out absent (allowed). */
  vanished: number;
}

/** Compares `history` with the stored commit hashes of each contract. */
export function checkSet(history: readonly Attempt[], stored: ReadonlyMap<string, readonly string[]>): SetReport {
  const present = new Set<string>();
  for (const [id, hashes] of stored) for (const h of hashes) present.add(`${id}/${h}`);
  const attempted = new Set<string>();
  const r: SetReport = { acked: 0, lost: 0, unexpected: 0, refusedButStored: 0, torn: 0, recovered: 0, vanished: 0 };
  for (const a of history) {
    const found = a.hashes.filter((h) => present.has(`${a.contract}/${h}`)).length;
    for (const h of a.hashes) attempted.add(`${a.contract}/${h}`);
    if (a.outcome === "ok") {
      r.acked += a.hashes.length;
      r.lost += a.hashes.length - found;
    } else if (a.outcome === "fail") {
      r.refusedButStored += found;
    } else {
      if (found !== 0 && found !== a.hashes.length) r.torn++;
      r.recovered += found;
      r.vanished += a.hashes.length - found;
    }
  }
  for (const key of present) if (!attempted.has(key)) r.unexpected++;
  return r;
}

/**
 * Problems with one pulled log, recomputed independently of the hub: each hash from its
 * content, each parent link from genesis, and the head.
 */
export function chainProblems(id: string, head: string, commits: readonly PulledCommit[]): string[] {
  const problems: string[] = [];
  let parent: string | null = null;
  commits.forEach((c, i) => {
    if (c.parent !== parent) problems.push(`${id}: commit ${i} has parent ${c.parent}, expected ${parent}`);
    if (computeCommitHash(id, c.parent, c.data) !== c.hash) problems.push(`${id}: commit ${i} hash does not recompute`);
    parent = c.hash;
  });
  if (parent !== head) problems.push(`${id}: log ends at ${parent}, head is ${head}`);
  return problems;
}
