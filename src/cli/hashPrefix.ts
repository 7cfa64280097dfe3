/**
 * Hashes on the command line: the CLI prints them short, and every command that takes a
 * commit, SEND or proposal hash accepts the full hash or a unique prefix of it back, as git
 * does. Seven characters is the shortest prefix taken: shorter ones collide too soon to be a
 * safe habit, and a printed short hash is always longer.
 */
import { ContractError } from "../contract/ContractError.js";
import { UsageError } from "./cliContext.js";

/** Characters of a hash the CLI prints. */
export const SHORT_HASH = 12;
/** The shortest prefix a command accepts. */
export const MIN_PREFIX = 7;

/** The printed form of a hash. */
export function shortHash(hash: string): string {
  return hash.slice(0, SHORT_HASH);
}

/**
 * `ref` as a hash or hash prefix (lower-cased): a usage error naming `flag` unless it is
 * 7 to 64 hex characters.
 */
export function hashRef(ref: string | undefined, flag: string): string {
  if (ref === undefined || ref === "") throw new UsageError(`${flag} is required`);
  const lower = ref.toLowerCase();
  if (!/^[0-9a-f]+$/.test(lower) || lower.length > 64)
    throw new UsageError(`${flag}: ${JSON.stringify(ref)} is not a hash or hash prefix (hex characters)`);
  if (lower.length < MIN_PREFIX)
    throw new UsageError(`${flag}: ${JSON.stringify(ref)} is too short: give at least ${MIN_PREFIX} hex characters`);
  return lower;
}

/** What `uniqueByPrefix` tells a person about the candidates. */
export interface PrefixSearch<T> {
  /** The candidate's hash. */
  hashOf(candidate: T): string;
  /** Plural noun of the candidates, e.g. "pending SENDs to c_1". */
  what: string;
  /** The `details.reason` of the NOT_FOUND when none matches. */
  notFoundReason: string;
  /** Printed under the NOT_FOUND message: where to look for the hashes. */
  hint?: string;
  /** What the ambiguity error shows after a candidate's hash (default: nothing). */
  describe?(candidate: T): string;
}

/**
 * The one candidate whose hash starts with `ref` (checked by `hashRef`). None: NOT_FOUND with
 * `details.reason`; several: a usage error listing each, so the person can give more characters.
 */
export function uniqueByPrefix<T>(ref: string, candidates: readonly T[], search: PrefixSearch<T>): T {
  const matches = candidates.filter((c) => search.hashOf(c).startsWith(ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new ContractError("NOT_FOUND", `None of the ${search.what} has a hash starting with ${ref}`, {
      reason: search.notFoundReason,
      prefix: ref,
      ...(search.hint !== undefined ? { hint: search.hint } : {}),
    });
  // The candidates may share the printed length: show enough of each to tell them apart.
  const shown = matches.map((c) =>
    `  ${search.hashOf(c).slice(0, Math.max(SHORT_HASH, ref.length + 4))}  ${search.describe?.(c) ?? ""}`.trimEnd(),
  );
  throw new UsageError(
    `${ref} is ambiguous: ${matches.length} ${search.what} start with it; give more characters:\n${shown.join("\n")}`,
  );
}
