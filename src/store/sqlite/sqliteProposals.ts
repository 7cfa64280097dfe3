import { ContractError } from "../../contract/ContractError.js";
import {
  keepsExisting,
  PROPOSAL_INSERT_COLUMNS,
  type ProposalRow,
  type ProposalStatus,
  proposalNotOpen,
  rowStanding,
  sameSignatures,
  statusCondition,
  tooManyProposals,
} from "../ProposalRecord.js";
import type Database from "./Database.js";

type Sql = (text: string) => Database.Statement;

/*
 * The writes below run on the writer thread and take and give rows, their JSON columns as
 * text (SqliteStore turns rows into records on the event loop, big ones in slices): a record
 * crossing the thread is cloned in one piece, and an attestation holding an object of 80,000
 * members made that clone as long as the JSON.stringify it spared.
 */

/** The proposal row, read inside or outside a write transaction. */
export function readProposalRow(sql: Sql, contractId: string, hash: string): ProposalRow | null {
  const row = sql("SELECT * FROM proposals WHERE contract_id = ? AND hash = ?").get(contractId, hash) as
    | ProposalRow
    | undefined;
  return row ?? null;
}

/**
 * saveProposal's body, run in one write transaction (SQLite has one writer: the count and the
 * insert cannot interleave). `params` are proposalParams's; the row kept instead, if any, is returned.
 */
export function saveProposalSync(
  sql: Sql,
  params: unknown[],
  q: { maxOpen: number; now: number },
): { kept: ProposalRow | null } {
  const [contractId, hash] = params as [string, string];
  const contract = sql("SELECT head FROM contracts WHERE id = ?").get(contractId) as { head: string } | undefined;
  if (contract === undefined) throw new ContractError("NOT_FOUND", `Contract ${contractId} not found`);
  const existing = readProposalRow(sql, contractId, hash);
  if (existing !== null && keepsExisting(rowStanding(existing), contract.head, q.now)) return { kept: existing };
  const open = sql(
    `SELECT COUNT(*) AS n FROM proposals p JOIN contracts c ON c.id = p.contract_id
      WHERE p.contract_id = ? AND ${statusCondition("open", "?")}`,
  ).get(contractId, q.now) as { n: number };
  if (open.n >= q.maxOpen) {
    const { message, details } = tooManyProposals(contractId, q.maxOpen);
    throw new ContractError("RATE_LIMITED", message, details);
  }
  if (existing !== null) sql("DELETE FROM proposals WHERE contract_id = ? AND hash = ?").run(contractId, hash);
  sql(`INSERT INTO proposals (${PROPOSAL_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...params);
  return { kept: null };
}

/** The contract's proposals of a derived status, newest first. */
export function listProposalsSync(
  sql: Sql,
  contractId: string,
  q: { status: ProposalStatus; now: number; limit: number; offset: number },
): ProposalRow[] {
  const rows = sql(
    `SELECT p.* FROM proposals p JOIN contracts c ON c.id = p.contract_id
      WHERE p.contract_id = ? AND ${statusCondition(q.status, "?")}
      ORDER BY p.created_at DESC, p.hash LIMIT ? OFFSET ?`,
  ).all(...[contractId, ...(q.status === "open" || q.status === "expired" ? [q.now] : []), q.limit, q.offset]);
  return rows as ProposalRow[];
}

/** Merges signatures into a stored-open proposal still holding `judged` (inside a write transaction). */
export function addSignaturesSync(
  sql: Sql,
  contractId: string,
  hash: string,
  signatures: Record<string, string>,
  judged: Record<string, string>,
): ProposalRow | null {
  const existing = readProposalRow(sql, contractId, hash);
  if (existing === null || existing.status !== "open") return existing;
  const held = JSON.parse(existing.signatures) as Record<string, string>;
  if (!sameSignatures(held, judged)) return existing;
  const merged = JSON.stringify({ ...held, ...signatures });
  sql("UPDATE proposals SET signatures = ? WHERE contract_id = ? AND hash = ?").run(merged, contractId, hash);
  return { ...existing, signatures: merged };
}

/** Marks a stored-open proposal withdrawn (inside a write transaction). */
export function withdrawSync(sql: Sql, contractId: string, hash: string): ProposalRow | null {
  sql("UPDATE proposals SET status = 'withdrawn' WHERE contract_id = ? AND hash = ? AND status = 'open'").run(
    contractId,
    hash,
  );
  return readProposalRow(sql, contractId, hash);
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
    throw proposalNotOpen(contractId, proposal.hash, readProposalRow(sql, contractId, proposal.hash)?.status);
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
