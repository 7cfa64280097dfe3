import type pg from "pg";
import { ContractError } from "../../contract/ContractError.js";
import {
  keepsExisting,
  PROPOSAL_INSERT_COLUMNS,
  type ProposalRecord,
  type ProposalRow,
  type ProposalStatus,
  proposalFromRow,
  proposalNotOpen,
  proposalsFromRows,
  sameSignatures,
  statusCondition,
  tooManyProposals,
} from "../ProposalRecord.js";

type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * Tells every instance, when the transaction commits, that the proposal changed (NOTIFY is
 * delivered at COMMIT and dropped by ROLLBACK, so a change is announced only once stored).
 */
export async function notifyProposal(client: pg.PoolClient, channel: string, contractId: string, hash: string) {
  await client.query("SELECT pg_notify($1, $2)", [channel, `${contractId}:${hash}`]);
}

/** The proposal row; `lock` takes its row lock (inside a transaction) so concurrent writers queue. */
export async function readPgProposal(
  db: Queryable,
  contractId: string,
  hash: string,
  lock = false,
): Promise<ProposalRecord | null> {
  const { rows } = await db.query<ProposalRow>(
    `SELECT * FROM proposals WHERE contract_id = $1 AND hash = $2${lock ? " FOR UPDATE" : ""}`,
    [contractId, hash],
  );
  // A big row's JSON columns are parsed in the shared slices (proposalFromRow).
  return rows[0] === undefined ? null : proposalFromRow(rows[0]);
}

/**
 * saveProposal's body inside a transaction. The contract's row lock (the one appends take)
 * serialises it with every other instance's proposals and appends, so the open count and the
 * insert cannot interleave with another instance's. `params` are proposalParamsInSlices's,
 * written before the transaction: big JSON columns in the shared slices, sent as plain text.
 */
export async function savePgProposal(
  client: pg.PoolClient,
  channel: string,
  proposal: ProposalRecord,
  params: unknown[],
  q: { maxOpen: number; now: number },
): Promise<{ proposal: ProposalRecord; created: boolean }> {
  const { contractId, hash } = proposal;
  const [contract] = (
    await client.query<{ head: string }>("SELECT head FROM contracts WHERE id = $1 FOR UPDATE", [contractId])
  ).rows;
  if (contract === undefined) throw new ContractError("NOT_FOUND", `Contract ${contractId} not found`);
  const existing = await readPgProposal(client, contractId, hash);
  if (existing !== null && keepsExisting(existing, contract.head, q.now)) return { proposal: existing, created: false };
  const [open] = (
    await client.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM proposals p JOIN contracts c ON c.id = p.contract_id
        WHERE p.contract_id = $1 AND ${statusCondition("open", "$2")}`,
      [contractId, q.now],
    )
  ).rows;
  if (Number(open!.n) >= q.maxOpen) {
    const { message, details } = tooManyProposals(contractId, q.maxOpen);
    throw new ContractError("RATE_LIMITED", message, details);
  }
  if (existing !== null)
    await client.query("DELETE FROM proposals WHERE contract_id = $1 AND hash = $2", [contractId, hash]);
  await client.query(
    `INSERT INTO proposals (${PROPOSAL_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    params,
  );
  await notifyProposal(client, channel, contractId, hash);
  return { proposal, created: true };
}

/** The contract's proposals of a derived status, newest first. */
export async function listPgProposals(
  db: Queryable,
  contractId: string,
  q: { status: ProposalStatus; now: number; limit: number; offset: number },
): Promise<ProposalRecord[]> {
  const { rows } = await db.query<ProposalRow>(
    `SELECT p.* FROM proposals p JOIN contracts c ON c.id = p.contract_id
      WHERE p.contract_id = $1 AND ($2::bigint IS NOT NULL) AND ${statusCondition(q.status, "$2")}
      ORDER BY p.created_at DESC, p.hash LIMIT $3 OFFSET $4`,
    [contractId, q.now, q.limit, q.offset],
  );
  return proposalsFromRows(rows);
}

/**
 * Merges signatures into a stored-open proposal still holding `judged`, under its row lock: a
 * racing signer waits, then finds other signatures than it judged against and writes nothing.
 */
export async function addPgSignatures(
  client: pg.PoolClient,
  channel: string,
  contractId: string,
  hash: string,
  signatures: Record<string, string>,
  judged: Record<string, string>,
): Promise<ProposalRecord | null> {
  const existing = await readPgProposal(client, contractId, hash, true);
  if (existing === null || existing.status !== "open" || !sameSignatures(existing.signatures, judged)) return existing;
  const merged = { ...existing.signatures, ...signatures };
  await client.query("UPDATE proposals SET signatures = $1 WHERE contract_id = $2 AND hash = $3", [
    JSON.stringify(merged),
    contractId,
    hash,
  ]);
  await notifyProposal(client, channel, contractId, hash);
  return { ...existing, signatures: merged };
}

/** Marks a stored-open proposal withdrawn and returns it. */
export async function withdrawPgProposal(
  client: pg.PoolClient,
  channel: string,
  contractId: string,
  hash: string,
): Promise<ProposalRecord | null> {
  const { rowCount } = await client.query(
    "UPDATE proposals SET status = 'withdrawn' WHERE contract_id = $1 AND hash = $2 AND status = 'open'",
    [contractId, hash],
  );
  if (rowCount === 1) await notifyProposal(client, channel, contractId, hash);
  return readPgProposal(client, contractId, hash);
}

/**
 * Marks the proposal an append completes as committed (inside the append's transaction); a
 * proposal no longer open (another instance withdrew it after the commit was decided) fails
 * the append (CONFLICT, rolled back).
 */
export async function markPgCommitted(
  client: pg.PoolClient,
  channel: string,
  contractId: string,
  proposal: { hash: string; signatures: Record<string, string> },
  index: number,
): Promise<void> {
  const { rowCount } = await client.query(
    `UPDATE proposals SET status = 'committed', commit_index = $1, signatures = $2
      WHERE contract_id = $3 AND hash = $4 AND status = 'open'`,
    [index, JSON.stringify(proposal.signatures), contractId, proposal.hash],
  );
  if (rowCount !== 1)
    throw proposalNotOpen(contractId, proposal.hash, (await readPgProposal(client, contractId, proposal.hash))?.status);
  await notifyProposal(client, channel, contractId, proposal.hash);
}
