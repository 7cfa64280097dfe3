import type { CreateValue, RecvValue, SendValue } from "../contract/Commit.js";
import { type AssetKey, resolveSendAsset } from "../contract/resolveSendAsset.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { AssetsDoc } from "./balancesCommand.js";
import type { TakenSend } from "./incomingCommand.js";

/**
 * The hub's answer to a plain id: the asset it names (with the balance the SEND will find when
 * that is another issuer's asset; this contract's own is left to the caller), or why none
 * (`not_held`, `ambiguous`).
 */
export type PlainAsset =
  | { key: AssetKey; balance?: number }
  | { failure: "not_held" | "ambiguous"; candidates: string[] };

/**
 * What the hub will take a SEND of the plain id `assetId` by contract `own` to name when it
 * comes after the working copy's unpushed commits: the rule the hub's ledger applies
 * (resolveSendAsset), over the hub's books (`books`, whole) moved by those commits in order,
 * as the ledger moves them within one push: a CREATE of the id makes it this contract's own, a
 * SEND of it debits the balance it resolves to, a RECV credits what its SEND carries (`taken`,
 * as the hub lists the SENDs waiting for this contract; an unpushed SEND to itself as it
 * resolved). Null when that cannot be settled here: a name with an issuer (not a plain id), an
 * amount in the books that is not a whole number, an unpushed SEND of the id that the hub would
 * refuse (ambiguous, not held, overdrawn: the push stops there, before this SEND), or an
 * unpushed RECV of a SEND the hub does not list (it might carry the id).
 */
export function plainAssetOnPush(
  own: string,
  assetId: string,
  books: AssetsDoc,
  unpushed: readonly StoredCommit[],
  taken: readonly TakenSend[],
): PlainAsset | null {
  if (assetId.includes("/")) return null;
  const ownKey = { key: { issuer: own, assetId } };
  if (books.assets.some((a) => a.issuer === own && a.asset_id === assetId)) return ownKey;
  const ops = unpushed.flatMap((c) => c.data.map((op) => ({ hash: c.hash, op })));
  if (ops.some(({ op }) => op.method === "create" && (op.value as CreateValue).asset_id === assetId)) return ownKey;

  // The balances of that id issued by others, by issuer, zero ones included (the hub keeps their rows).
  const held = new Map<string, number>();
  for (const b of books.balances) {
    if (b.asset_id !== assetId || b.issuer === own) continue;
    if (!isAmount(b.amount)) return null;
    held.set(b.issuer, b.amount);
  }
  const resolve = () =>
    resolveSendAsset(own, assetId, () => ({
      issuedBySender: false,
      foreign: [...held].map(([issuer, amount]) => ({ issuer, amount })),
    }));
  const listed = new Map(taken.map((s) => [s.hash, s]));
  /** Unpushed SENDs by commit hash: what a RECV of each brings in here (null: nothing of this id). */
  const sent = new Map<string, { issuer: string; amount: number } | null>();
  for (const { hash, op } of ops) {
    if (op.method === "send") {
      const v = op.value as SendValue;
      const slash = v.asset_id.indexOf("/");
      if (v.asset_id.slice(slash + 1) !== assetId) {
        sent.set(hash, null);
        continue;
      }
      const choice = slash >= 0 ? { key: { issuer: v.asset_id.slice(0, slash), assetId } } : resolve();
      if (!("key" in choice) || choice.key.issuer === own) return null;
      const { issuer } = choice.key;
      const left = (held.get(issuer) ?? -1) - v.amount;
      if (left < 0) return null;
      held.set(issuer, left);
      sent.set(hash, v.to_contract === own ? { issuer, amount: v.amount } : null);
    } else if (op.method === "recv") {
      const sendHash = (op.value as RecvValue).send_commit_id;
      const listedSend = listed.get(sendHash);
      let brings: { issuer: string; amount: number } | null;
      if (sent.has(sendHash)) brings = sent.get(sendHash) ?? null;
      else if (listedSend === undefined || listedSend.issuer === null) return null;
      else if (listedSend.asset_id !== assetId || listedSend.issuer === own) brings = null;
      else if (!isAmount(listedSend.amount)) return null;
      else brings = { issuer: listedSend.issuer, amount: listedSend.amount };
      if (brings !== null) held.set(brings.issuer, (held.get(brings.issuer) ?? 0) + brings.amount);
    }
  }
  const choice = resolve();
  return "key" in choice ? { key: choice.key, balance: held.get(choice.key.issuer)! } : choice;
}

/** Whether an amount the hub answered can be counted with: a whole number of units, not negative. */
export const isAmount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
