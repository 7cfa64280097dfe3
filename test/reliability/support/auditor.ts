/**
 * The soak's auditor (anchors §B: rekor-monitor, immudb's client state): it remembers, per
 * contract, every commit hash it has seen, and checks that each later view of the log
 * extends it: a full pull keeps the remembered log as its prefix, a pull `since` the last
 * remembered hash continues from it, and subscription events arrive in log order, once.
 * Anything else is an inconsistency.
 */
import type { PulledCommit } from "../../../src/contract/Commit.js";
import { chainProblems } from "./setChecker.js";

export class Auditor {
  readonly seen = new Map<string, string[]>();
  readonly inconsistencies: string[] = [];
  pulls = 0;
  events = 0;

  /** A full pull (from genesis). */
  full(id: string, head: string, commits: readonly PulledCommit[]): void {
    this.pulls++;
    for (const p of chainProblems(id, head, commits)) this.inconsistencies.push(p);
    const known = this.seen.get(id) ?? [];
    const hashes = commits.map((c) => c.hash);
    if (hashes.length < known.length || known.some((h, i) => hashes[i] !== h))
      this.inconsistencies.push(`${id}: a full pull of ${hashes.length} does not extend the ${known.length} seen`);
    else this.seen.set(id, hashes);
  }

  /** The hash to pull `since` (the last seen), or undefined when nothing is known yet. */
  last(id: string): string | undefined {
    const known = this.seen.get(id);
    return known?.[known.length - 1];
  }

  /** A pull `since` the hash `from`. */
  since(id: string, from: string, head: string, commits: readonly PulledCommit[]): void {
    this.pulls++;
    const known = this.seen.get(id) ?? [];
    const at = known.indexOf(from);
    if (at < 0) return void this.inconsistencies.push(`${id}: pulled since ${from}, which was never seen`);
    let parent = from;
    for (const c of commits) {
      if (c.parent !== parent) this.inconsistencies.push(`${id}: pull since ${from} breaks at ${c.hash}`);
      parent = c.hash;
    }
    if (commits.length > 0 && parent !== head)
      this.inconsistencies.push(`${id}: pull since ${from} ends before its head`);
    // Another view may have moved past `from` meanwhile: what both saw must agree.
    const fresh = [...known.slice(0, at + 1), ...commits.map((c) => c.hash)];
    const overlap = Math.min(fresh.length, known.length);
    for (let i = 0; i < overlap; i++)
      if (fresh[i] !== known[i]) return void this.inconsistencies.push(`${id}: pull since ${from} rewrites index ${i}`);
    if (fresh.length > known.length) this.seen.set(id, fresh);
  }

  /** A subscription event at `index` with `hash`; `expected` is the index the subscriber waits for. */
  event(id: string, index: number, hash: string, expected: number): void {
    this.events++;
    if (index !== expected) this.inconsistencies.push(`${id}: event ${index} arrived when ${expected} was due`);
    const known = this.seen.get(id) ?? [];
    if (index < known.length && known[index] !== hash)
      this.inconsistencies.push(`${id}: event ${index} carries ${hash}, the log has ${known[index]}`);
  }
}
