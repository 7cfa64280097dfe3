import type pg from "pg";
import { ContractError } from "../../contract/ContractError.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { checkChain, existsConflict, headConflict, lengthAtHead } from "../appendPosition.js";
import { replayedNonce } from "../replayedNonce.js";
import type { AppendExtras, RequestNonce } from "../Store.js";
import { applyPgAssetEffects } from "./pgAssetEffects.js";
import { insertCommits } from "./pgCommitRows.js";
import type { PgChannels } from "./pgPool.js";
import { markPgCommitted } from "./pgProposals.js";
import { appendPgLeaves } from "./pgTree.js";

/** Records a request nonce; an expired row may be reused, a live one leaves the row alone (rowCount 0: a replay). */
export const INSERT_NONCE = `INSERT INTO nonces (access_key, nonce, expires_at) VALUES ($1, $2, $3)
  ON CONFLICT (access_key, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at < $4`;

/** The contract a creation found under its id (its head is named only when it is public). */
const SELECT_EXISTING = "SELECT head, private FROM contracts WHERE id = $1";
type ExistingRow = { head: string; private: number };

/** INSERT_NONCE's parameters at `now` (seconds). */
export function nonceParams(n: RequestNonce, now: number): unknown[] {
  return [n.accessKey, n.nonce, n.expiresAt, now];
}

/** The request's nonce first (a replay stores nothing), then head check under the row lock, leaf numbering (the tree's lock), one batched insert, head update, asset effects, party index, NOTIFY. */
export async function appendInTransaction(
  client: pg.PoolClient,
  channels: PgChannels,
  contractId: string,
  expectedHead: string | null,
  commits: StoredCommit[],
  extras: AppendExtras,
): Promise<void> {
  if (extras.nonce !== undefined) {
    // Inside the transaction, the primary key makes another instance's insert of the same
    // nonce wait for this one's outcome: at most one of the two commits, so at most one appends.
    const r = await client.query(INSERT_NONCE, nonceParams(extras.nonce, Math.floor(Date.now() / 1000)));
    if (r.rowCount !== 1) throw replayedNonce();
  }
  let length: number;
  if (expectedHead === null) {
    const c = extras.contract;
    // Checked before the INSERT so a missing record is INTERNAL, as in the SQLite store,
    // unless the contract exists (then CONFLICT wins there too).
    if (c === undefined) {
      const [row] = (await client.query<ExistingRow>(SELECT_EXISTING, [contractId])).rows;
      if (row !== undefined) throw existsConflict(contractId, row);
      throw new ContractError("INTERNAL", "Cannot create a contract without its record");
    }
    // ON CONFLICT waits for a concurrent creator to finish, then reports the row: the
    // primary key serialises creation across instances without a separate lock.
    const created = await client.query(
      `INSERT INTO contracts (id, owner, created_at, head, length, private) VALUES ($1, $2, $3, $4, 0, $5)
         ON CONFLICT (id) DO NOTHING`,
      [contractId, c.owner, c.createdAt, commits[0]!.hash, c.private ? 1 : 0],
    );
    if (created.rowCount !== 1) {
      const [row] = (await client.query<ExistingRow>(SELECT_EXISTING, [contractId])).rows;
      throw row === undefined
        ? headConflict(contractId, null, `Cannot append: contract ${contractId} exists`)
        : existsConflict(contractId, row);
    }
    if ((c.readers ?? []).length > 0) {
      await client.query(
        `INSERT INTO grants (contract_id, identity, role, granted_at)
           SELECT $1, r, 'reader', $3 FROM unnest($2::text[]) AS r ON CONFLICT DO NOTHING`,
        [contractId, c.readers, c.createdAt],
      );
    }
    length = 0;
  } else {
    // The row lock serialises appends of this contract across every instance until COMMIT.
    const [row] = (
      await client.query<{ head: string; length: number }>(
        "SELECT head, length FROM contracts WHERE id = $1 FOR UPDATE",
        [contractId],
      )
    ).rows;
    length = lengthAtHead(contractId, row, expectedHead);
  }
  const parent = checkChain(length, expectedHead, commits);
  await appendPgLeaves(client, commits);
  await insertCommits(client, contractId, commits);
  await client.query("UPDATE contracts SET head = $1, length = $2 WHERE id = $3", [
    parent,
    length + commits.length,
    contractId,
  ]);
  if (extras.assetEffects !== undefined) await applyPgAssetEffects(client, extras.assetEffects);
  if (extras.parties !== undefined && extras.parties.length > 0) {
    // Last write per path wins; one row per path, since ON CONFLICT DO UPDATE may not touch a row twice.
    const last = new Map(extras.parties.map((p) => [p.path, p.identity]));
    await client.query(
      `INSERT INTO party_paths (contract_id, path, identity)
         SELECT $1, p, i FROM unnest($2::text[], $3::text[]) AS t(p, i)
         ON CONFLICT (contract_id, path) DO UPDATE SET identity = excluded.identity`,
      [contractId, [...last.keys()], [...last.values()]],
    );
  }
  const notice = `${contractId}:${length + commits.length - 1}`;
  if (extras.proposal !== undefined) {
    const hash = extras.proposal.hash;
    await markPgCommitted(
      client,
      channels.proposals,
      contractId,
      extras.proposal,
      commits.find((c) => c.hash === hash)!.index,
    );
  } else if (expectedHead !== null) {
    // The exact commit of an open proposal, appended without it, is what it proposed: it is
    // committed, not stale (docs/proposals.md). Only the first commit can be one (a proposal's
    // parent is the head this append extends); folded into the commit notice's statement, so a
    // push pays no extra round trip for it.
    await client.query(NOTIFY_MARKING_APPENDED, [
      channels.commits,
      notice,
      commits[0]!.index,
      JSON.stringify(commits[0]!.signatures),
      contractId,
      commits[0]!.hash,
      channels.proposals,
    ]);
    return;
  }
  // Queued now, delivered by PostgreSQL at COMMIT and never for a rolled-back append.
  await client.query("SELECT pg_notify($1, $2)", [channels.commits, notice]);
}

/**
 * The commit notice ($1, $2), and, in the same statement, the stored-open proposal whose hash
 * is the append's first commit ($5, $6) marked committed at its index ($3) with its signatures
 * ($4), announced to every instance on the proposals channel ($7) when there was one.
 */
const NOTIFY_MARKING_APPENDED = `WITH marked AS (
    UPDATE proposals SET status = 'committed', commit_index = $3, signatures = $4
     WHERE contract_id = $5 AND hash = $6 AND status = 'open' RETURNING hash)
  SELECT pg_notify($1, $2), (SELECT pg_notify($7, $5::text || ':' || hash) FROM marked)`;
