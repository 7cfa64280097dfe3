/**
 * How a SEND's `asset_id` names an asset (docs/assets.md). The hub's ledger (before an
 * append), its invariant check (from the logs) and the CLI's `send` (before it writes a SEND)
 * must all resolve a SEND identically, so the rule lives here once; the hub re-exports it from
 * src/hub/assets/assetRules.ts.
 */

/** An asset's global identity (docs/assets.md): the issuing contract and the asset id. */
export interface AssetKey {
  issuer: string;
  assetId: string;
}

/** What a sender holds of the assets named like the one it sends (for plain-id resolution). */
export interface Holdings {
  /** True when the sender itself issued an asset with this id. */
  issuedBySender: boolean;
  /** The sender's balances of same-named assets issued by other contracts (zero balances included). */
  foreign: Array<{ issuer: string; amount: number }>;
}

/**
 * The asset a SEND names (docs/assets.md): `<issuer>/<asset_id>` names it outright; a plain
 * id is the sender's own asset, else the one foreign asset of that id the sender holds. When
 * several are held, only those with a positive balance count; if that still leaves several,
 * the name is ambiguous. A single held asset with a zero balance is chosen, so the SEND then
 * fails as an insufficient balance (-32024), which is the more useful answer. Returns the
 * key, or a reason id (`not_held` / `ambiguous`).
 */
export function resolveSendAsset(
  sender: string,
  named: string,
  holdings: (assetId: string) => Holdings,
): { key: AssetKey } | { failure: "not_held" | "ambiguous"; candidates: string[] } {
  const slash = named.indexOf("/");
  if (slash >= 0) return { key: { issuer: named.slice(0, slash), assetId: named.slice(slash + 1) } };
  const h = holdings(named);
  if (h.issuedBySender) return { key: { issuer: sender, assetId: named } };
  const positive = h.foreign.filter((f) => f.amount > 0);
  const pick = positive.length > 0 ? positive : h.foreign;
  const candidates = pick.map((f) => `${f.issuer}/${named}`).sort();
  if (pick.length === 1) return { key: { issuer: pick[0]!.issuer, assetId: named } };
  return { failure: pick.length === 0 ? "not_held" : "ambiguous", candidates };
}

/** The reason id and text of an unresolvable SEND asset (-32022). */
export function notHeldReason(sender: string, named: string, failure: "not_held" | "ambiguous", candidates: string[]) {
  return failure === "ambiguous"
    ? `asset ${JSON.stringify(named)} is ambiguous in contract ${sender}: it holds ${candidates.join(", ")}; name one as <issuer>/<asset_id>`
    : `asset ${JSON.stringify(named)} not found in contract ${sender}`;
}
