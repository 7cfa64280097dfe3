/**
 * The checks both stores make inside an append's transaction, once the contract's row is
 * read (and locked): the stored head is the one the caller validated against, and the
 * commits line up after it. Kept in one place so SQLite and PostgreSQL refuse the same way.
 */
import { ContractError } from "../contract/ContractError.js";
import type { StoredCommit } from "../contract/StoredCommit.js";

/**
 * CONFLICT with the stored head in `details.head` (docs/api.md). The reason is the engine's
 * `stale_parent`: a caller cannot tell, and need not, whether its head went stale before the
 * lock or in a race only the store saw (another instance appended first).
 */
export function headConflict(contractId: string, head: string | null, message: string): ContractError {
  return new ContractError("CONFLICT", message, { reason: "stale_parent", contract_id: contractId, head });
}

/**
 * CONFLICT for a creation that found `row` (the contract's stored head and privacy) under its
 * id: a creation that lost a race to another instance. The head of a private contract is not
 * named, as the hub never tells it to a caller who may not read it.
 */
export function existsConflict(contractId: string, row: { head: string; private: number | boolean }): ContractError {
  // `contract_exists`, as a creation that found the contract before the store did is told.
  const details = { reason: "contract_exists", contract_id: contractId };
  const message = `Cannot append: contract ${contractId} exists`;
  return new ContractError("CONFLICT", message, row.private ? details : { ...details, head: row.head });
}

/**
 * The stored length when `row` (the contract's stored head and length) is at `expectedHead`;
 * CONFLICT with the stored head when the contract is missing or its head moved.
 */
export function lengthAtHead(
  contractId: string,
  row: { head: string; length: number } | undefined,
  expectedHead: string,
): number {
  if (row === undefined) throw headConflict(contractId, null, `Cannot append: contract ${contractId} does not exist`);
  if (row.head !== expectedHead) {
    throw headConflict(contractId, row.head, `Cannot append: the head of ${contractId} moved to ${row.head}`);
  }
  return row.length;
}

/**
 * The new head after `commits`; throws INTERNAL unless they sit at `length`, `length + 1`, …
 * each naming the previous as parent (the caller computed positions from the head it
 * validated against, so a mismatch is a bug, not a race).
 */
export function checkChain(
  length: number,
  parent: string | null,
  commits: readonly Pick<StoredCommit, "index" | "hash" | "parent">[],
): string | null {
  let head = parent;
  for (const [i, c] of commits.entries()) {
    if (c.index !== length + i || c.parent !== head) {
      throw new ContractError("INTERNAL", `Cannot append: commit ${c.hash} is not at position ${length + i}`);
    }
    head = c.hash;
  }
  return head;
}
