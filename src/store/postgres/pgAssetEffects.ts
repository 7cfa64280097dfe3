import type { PoolClient } from "pg";
import { assetEffectRefusal } from "../assetEffectRefusal.js";
import type { AssetEffect } from "../Store.js";

/** The SQLSTATE and constraint name of a pg error (both undefined otherwise). */
function pgError(err: unknown): { code?: string; constraint?: string } {
  return typeof err === "object" && err !== null ? (err as { code?: string; constraint?: string }) : {};
}

const CREDIT = `INSERT INTO balances (contract_id, issuer, asset_id, amount) VALUES ($1, $2, $3, $4)
  ON CONFLICT (contract_id, issuer, asset_id) DO UPDATE SET amount = balances.amount + excluded.amount`;

/**
 * Writes asset effects inside the append transaction, exactly as ../sqlite/applyAssetEffects
 * does, with the same errors: the UNIQUE receipt (-32032 already received, even when two
 * instances race), the non-negative balance CHECK (-32024) and the asset key (-32040). A
 * failed statement aborts the PostgreSQL transaction, so the caller rolls the append back.
 */
export async function applyPgAssetEffects(client: PoolClient, effects: readonly AssetEffect[]): Promise<void> {
  for (const e of effects) {
    try {
      if (e.kind === "create") {
        await client.query(
          "INSERT INTO assets (issuer, asset_id, quantity, divisibility, commit_hash) VALUES ($1, $2, $3, $4, $5)",
          [e.issuer, e.assetId, e.quantity, e.divisibility, e.commitHash],
        );
        await client.query(CREDIT, [e.issuer, e.issuer, e.assetId, e.quantity]);
      } else if (e.kind === "send") {
        const debit = await client.query(
          "UPDATE balances SET amount = amount - $1 WHERE contract_id = $2 AND issuer = $3 AND asset_id = $4",
          [e.amount, e.from, e.issuer, e.assetId],
        );
        if (debit.rowCount !== 1)
          throw assetEffectRefusal(e, `no balance of ${e.issuer}/${e.assetId}`, -32022, "asset_not_found");
        // The SEND's leaf orders its recipient's incoming list (schema version 11): its commit
        // was inserted, leaf and all, before the effects.
        await client.query(
          `INSERT INTO sends (commit_hash, from_contract, to_contract, issuer, asset_id, amount, leaf_index)
           VALUES ($1, $2, $3, $4, $5, $6, (SELECT leaf_index FROM commits WHERE hash = $1))`,
          [e.commitHash, e.from, e.to, e.issuer, e.assetId, e.amount],
        );
      } else {
        const { rows } = await client.query<{ to_contract: string; issuer: string; asset_id: string; amount: number }>(
          "SELECT to_contract, issuer, asset_id, amount FROM sends WHERE commit_hash = $1",
          [e.sendCommitHash],
        );
        const send = rows[0];
        if (send === undefined)
          throw assetEffectRefusal(e, `SEND ${e.sendCommitHash} not found`, -32030, "send_not_found");
        if (send.to_contract !== e.contractId)
          throw assetEffectRefusal(e, `SEND is addressed to ${send.to_contract}`, -32031, "wrong_recipient");
        await client.query(
          "INSERT INTO receipts (send_commit_hash, recv_commit_hash, contract_id) VALUES ($1, $2, $3)",
          [e.sendCommitHash, e.recvCommitHash, e.contractId],
        );
        await client.query(CREDIT, [e.contractId, send.issuer, send.asset_id, send.amount]);
      }
    } catch (err) {
      const { code, constraint } = pgError(err);
      if (code === "23505" && constraint === "receipts_one_per_send" && e.kind === "recv")
        throw assetEffectRefusal(e, "SEND already received", -32032, "already_received");
      if (code === "23505" && constraint === "assets_pkey" && e.kind === "create")
        throw assetEffectRefusal(e, `asset ${e.assetId} already exists`, -32040, "asset_exists");
      if (code === "23514" && e.kind === "send")
        throw assetEffectRefusal(e, "insufficient balance", -32024, "insufficient_balance");
      throw err;
    }
  }
}
