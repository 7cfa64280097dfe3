import { ContractError } from "../../contract/ContractError.js";
import {
  keepsExisting,
  PROPOSAL_INSERT_COLUMNS,
  type ProposalRecord,
  type ProposalRow,
  type ProposalStatus,
  proposalFromRow,
  proposalNotOpen,
  proposalParams,
  sameSignatures,
  statusCondition,
  tooManyProposals,
} from "../ProposalRecord.js";
import type Database from "./Database.js";

type Sql = (text: string) => Database.Statement;

/** The proposal row, read inside or outside a write transaction. */
export function readProposal(sql: Sql, contractId: string, hash: string): ProposalRecord | null {
  const row = sql("SELECT * FROM proposals WHERE contract_id = ? AND hash = ?").get(contractId, hash) as
    | ProposalRow
    | undefined;
  return row === undefined ? null : proposalFromRow(row);
}

/** saveProposal's body, run in one write transaction (SQLite has one writer: the count and the insert cannot interleave). */
export function saveProposalSync(
  sql: Sql,
  proposal: ProposalRecord,
  q: { maxOpen: number; now: number },
): { proposal: ProposalRecord; created: boolean } {
  const { contractId, hash } = proposal;
  const contract = sql("SELECT head FROM contracts WHERE id = ?").get(contractId) as { head: string } | undefined;
  if (contract === undefined) throw new ContractError("NOT_FOUND", `Contract ${contractId} not found`);
  const existing = readProposal(sql, contractId, hash);
  if (existing !== null && keepsExisting(existing, contract.head, q.now)) return { proposal: existing, created: false };
  const open = sql(
    `SELECT COUNT(*) AS n FROM proposals p JOIN contracts c ON c.id = p.contract_id
      WHERE p.contract_id = ? AND ${statusCondition("open", "?")}`,
  ).get(contractId, q.now) as { n: number };
  if (open.n >= q.maxOpen) {
    const { message, details } = tooManyProposals(contractId, q.maxOpen);
    throw new ContractError("RATE_LIMITED", message, details);
  }
  if (existing !== null) sql("DELETE FROM proposals WHERE contract_id = ? AND hash = ?").run(contractId, hash);
  sql(`INSERT INTO proposals (${PROPOSAL_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    ...proposalParams(proposal),
  );
  return { proposal, created: true };
}

/** The contract's proposals of a derived status, newest first. */
export function listProposalsSync(
  sql: Sql,
  contractId: string,
  q: { status: ProposalStatus; now: number; limit: number; offset: number },
): ProposalRecord[] {
  const rows = sql(
    `SELECT p.* FROM proposals p JOIN contracts c ON c.id = p.contract_id
      WHERE p.contract_id = ? AND ${statusCondition(q.status, "?")}
      ORDER BY p.created_at DESC, p.hash LIMIT ? OFFSET ?`,
  ).all(...[contractId, ...(q.status === "open" || q.status === "expired" ? [q.now] : []), q.limit, q.offset]);
  return (rows as ProposalRow[]).map(proposalFromRow);
}

/** Merges signatures into a stored-open proposal still holding `judged` (inside a write transaction). */
export function addSignaturesSync(
  sql: Sql,
  contractId: string,
  hash: string,
  signatures: Record<string, string>,
  judged: Record<string, string>,
): ProposalRecord | null {
  const existing = readProposal(sql, contractId, hash);
  if (existing === null || existing.status !== "open" || !sameSignatures(existing.signatures, judged)) return existing;
  const merged = { ...existing.signatures, ...signatures };
  sql("UPDATE proposals SET signatures = ? WHERE contract_id = ? AND hash = ?").run(
    JSON.stringify(merged),
    contractId,
    hash,
  );
  return { ...existing, signatures: merged };
}

/** Marks a stored-open proposal withdrawn (inside a write transaction). */
export function withdrawSync(sql: Sql, contractId: string, hash: string): ProposalRecord | null {
  sql("UPDATE proposals SET status = 'withdrawn' WHERE contract_id = ? AND hash = ? AND status = 'open'").run(
    contractId,
    hash,
  );
  return readProposal(sql, contractId, hash);
}

/**
 * Marks the proposal an append completes as committed (inside the append's transaction); a
 * proposal no longer open (withdrawn after the commit was decided) fails the append (CONFLICT).
 */
export function markCommittedSync(
  sql: Sql,
  contractId: string,
  proposal: { hash: string; signatures: Record<string, string> },
  index: number,
): void {
  const { changes } = sql(
    `UPDATE proposals SET status = 'committed', commit_index = ?, signatures = ?
      WHERE contract_id = ? AND hash = ? AND status = 'open'`,
  ).run(index, JSON.stringify(proposal.signatures), contractId, proposal.hash);
  if (changes !== 1)
    throw proposalNotOpen(contractId, proposal.hash, readProposal(sql, contractId, proposal.hash)?.status);
}

/**
 * Marks the stored-open proposal whose commit an append stored directly (POST …/commits or a
 * push, not the proposal's own route) as committed at `commit`'s index, with that commit's
 * signatures, inside the append's transaction. One primary-key lookup per append: only an
 * append's first commit can be a proposal's, since a proposal's parent is the head it extends.
 */
export function markAppendedSync(
  sql: Sql,
  contractId: string,
  commit: { hash: string; index: number; signatures: string },
): void {
  sql(
    `UPDATE proposals SET status = 'committed', commit_index = ?, signatures = ?
      WHERE contract_id = ? AND hash = ? AND status = 'open'`,
  ).run(commit.index, commit.signatures, contractId, commit.hash);
}
