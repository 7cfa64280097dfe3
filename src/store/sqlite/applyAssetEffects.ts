import { assetEffectRefusal } from "../assetEffectRefusal.js";
import type { AssetEffect } from "../Store.js";
import type Database from "./Database.js";

function isConstraint(err: unknown, kind: string): boolean {
  return err instanceof Error && "code" in err && String((err as { code: unknown }).code) === kind;
}

/**
 * Writes asset effects inside the append transaction (docs/assets.md). The asset engine
 * checks balances and receipts before; these statements are the backstop that holds even
 * when two instances race: the UNIQUE receipt and the non-negative balance CHECK fail the
 * append (-32032 already received, -32024 insufficient balance, -32040 asset exists).
 */
export function applyAssetEffects(db: Database.Database, effects: readonly AssetEffect[]): void {
  const credit = db.prepare(
    `INSERT INTO balances (contract_id, issuer, asset_id, amount) VALUES (?, ?, ?, ?)
     ON CONFLICT (contract_id, issuer, asset_id) DO UPDATE SET amount = balances.amount + excluded.amount`,
  );
  for (const e of effects) {
    try {
      if (e.kind === "create") {
        db.prepare(
          "INSERT INTO assets (issuer, asset_id, quantity, divisibility, commit_hash) VALUES (?, ?, ?, ?, ?)",
        ).run(e.issuer, e.assetId, e.quantity, e.divisibility, e.commitHash);
        credit.run(e.issuer, e.issuer, e.assetId, e.quantity);
      } else if (e.kind === "send") {
        const debit = db
          .prepare("UPDATE balances SET amount = amount - ? WHERE contract_id = ? AND issuer = ? AND asset_id = ?")
          .run(e.amount, e.from, e.issuer, e.assetId);
        if (debit.changes !== 1)
          throw assetEffectRefusal(e, `no balance of ${e.issuer}/${e.assetId}`, -32022, "asset_not_found");
        // The SEND's leaf orders its recipient's incoming list (schema version 11): its commit
        // was inserted, leaf and all, before the effects.
        db.prepare(
          `INSERT INTO sends (commit_hash, from_contract, to_contract, issuer, asset_id, amount, leaf_index)
           VALUES (?, ?, ?, ?, ?, ?, (SELECT leaf_index FROM commits WHERE hash = ?))`,
        ).run(e.commitHash, e.from, e.to, e.issuer, e.assetId, e.amount, e.commitHash);
      } else {
        const send = db
          .prepare("SELECT to_contract, issuer, asset_id, amount FROM sends WHERE commit_hash = ?")
          .get(e.sendCommitHash) as
          | { to_contract: string; issuer: string; asset_id: string; amount: number }
          | undefined;
        if (send === undefined)
          throw assetEffectRefusal(e, `SEND ${e.sendCommitHash} not found`, -32030, "send_not_found");
        if (send.to_contract !== e.contractId)
          throw assetEffectRefusal(e, `SEND is addressed to ${send.to_contract}`, -32031, "wrong_recipient");
        db.prepare("INSERT INTO receipts (send_commit_hash, recv_commit_hash, contract_id) VALUES (?, ?, ?)").run(
          e.sendCommitHash,
          e.recvCommitHash,
          e.contractId,
        );
        credit.run(e.contractId, send.issuer, send.asset_id, send.amount);
      }
    } catch (err) {
      if (isConstraint(err, "SQLITE_CONSTRAINT_UNIQUE") && e.kind === "recv")
        throw assetEffectRefusal(e, "SEND already received", -32032, "already_received");
      if (isConstraint(err, "SQLITE_CONSTRAINT_PRIMARYKEY") && e.kind === "create")
        throw assetEffectRefusal(e, `asset ${e.assetId} already exists`, -32040, "asset_exists");
      if (isConstraint(err, "SQLITE_CONSTRAINT_CHECK") && e.kind === "send")
        throw assetEffectRefusal(e, "insufficient balance", -32024, "insufficient_balance");
      throw err;
    }
  }
}
