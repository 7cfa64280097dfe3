import { ContractError } from "../contract/ContractError.js";
import { notHeldReason } from "../contract/resolveSendAsset.js";
import { hubAssets, pendingChanges } from "./balancesCommand.js";
import { type Cli, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { sendsTakenByUnpushed, type TakenSend, unpushedReceipts } from "./incomingCommand.js";
import { isAmount, plainAssetOnPush } from "./plainAssetOnPush.js";
import { askHubWithin } from "./workingCopy/askHubWithin.js";
import { type CommitFlags, type CommitWarning, commitLocally } from "./workingCopy/commitLocally.js";
import { clientFor, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { positiveInteger, required } from "./workingCopy/numbers.js";
import { type RecipientSeen, recipientOnHub } from "./workingCopy/recipientOnHub.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub send --asset ID --to CONTRACT --amount N`: a SEND commit. The model and rules
 * are checked here, and so is the balance as far as it can be known: the hub's books plus
 * the working copy's unpushed creates, sends and receipts. An overdraw is refused before it is
 * written, instead of sinking the whole push later. The destination is asked of the hub first
 * (the hub's own order: recipient, then asset, then balance): a contract the hub does not show
 * this key is refused, so a mistyped id is caught before it is written, not at push. So is a
 * plain asset id that the hub will find ambiguous (`asset_ambiguous`, with the hub's details).
 * When the hub cannot be asked about either (or its books leave the balance unknown), the SEND is
 * written with a warning for each check not made, so a hub that is down does not stop work
 * and the warnings say what the push is left to decide.
 * `--no-recipient-check` (commander's `recipientCheck: false`) skips the destination only, for
 * a private contract this key may not read; `--offline` asks the hub nothing.
 */
export function sendCommand(
  opts: CommitFlags & { asset?: string; to?: string; amount?: string; offline?: boolean; recipientCheck?: boolean },
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "send", async (cli: Cli) => {
    const value = {
      asset_id: required(opts.asset, "--asset"),
      to_contract: required(opts.to, "--to"),
      amount: positiveInteger(opts.amount, "--amount"),
    };
    const notAsked = { seen: "not_asked" } as const;
    const [recipient, balance] =
      opts.offline === true
        ? [notAsked, null]
        : await Promise.all([
            opts.recipientCheck === false
              ? notAsked
              : recipientOnHub(cli, opts.key, WorkingCopy.find(cli.cwd), value.to_contract),
            knownBalance(cli, opts.key, value.asset_id),
          ]);
    if (recipient.seen === "hidden") throw recipientNotVisible(value.to_contract);
    if (typeof balance === "object" && balance !== null && "ambiguous" in balance) {
      const { sender, candidates } = balance.ambiguous;
      // The hub's refusal, word for word, so a script sees one error whichever side refuses.
      throw new ContractError(
        "VALIDATION_FAILED",
        `SEND rejected: ${notHeldReason(sender, value.asset_id, "ambiguous", candidates)}`,
        { reason: "asset_ambiguous", rpc_code: -32022, candidates },
      );
    }
    const available = typeof balance === "object" && balance !== null ? null : balance;
    if (available === "none") {
      throw new ContractError(
        "VALIDATION_FAILED",
        `SEND rejected: this contract holds no ${value.asset_id}, and no unpushed commit creates or receives it`,
        { reason: "asset_not_found", rpc_code: -32022, asset_id: value.asset_id },
      );
    }
    if (available !== null && value.amount > available) {
      throw new ContractError(
        "VALIDATION_FAILED",
        `SEND rejected: ${value.amount} ${value.asset_id} is more than this contract holds (${available}, counting unpushed commits)`,
        { reason: "insufficient_balance", asset_id: value.asset_id, amount: value.amount, available },
      );
    }
    await commitLocally(cli, opts, [{ method: "send", value }], uncheckedWarnings(recipient, balance, value));
    return undefined;
  });
}

/**
 * The refusal of a destination the hub does not show this key. The hub answers a private
 * contract that the caller may not read exactly as a missing one, so this does not say the
 * contract does not exist (that is the push's -32025), and `--no-recipient-check` is the way
 * past it (not `--offline`, which would skip the balance check too).
 */
function recipientNotVisible(to: string): ContractError {
  return new ContractError(
    "NOT_FOUND",
    `SEND refused: the hub shows this key no contract ${JSON.stringify(to)}: the id is wrong, or the contract is private and this key may not read it`,
    {
      reason: "recipient_not_visible",
      to_contract: to,
      hint: "Check the id. To send to a private contract you may not read, run the same command with --no-recipient-check: the balance is still checked here, and the hub checks at push that the contract exists.",
    },
  );
}

/**
 * One warning for each check of a SEND written without the hub's word: its destination
 * (`destination_not_checked`) and its balance (`balance_not_checked`), whichever the hub
 * could not be asked about, so a script learns from the codes alone what the push is left to
 * decide. The balance is unchecked too when the hub answered with books that leave it
 * unknown (same code: the same check is not made; the message says why). None when the hub
 * answered both, or when `--offline` asked it nothing on purpose.
 */
function uncheckedWarnings(
  recipient: RecipientSeen,
  balance: Exclude<KnownBalance, { ambiguous: unknown }> | null,
  value: { asset_id: string; to_contract: string },
): CommitWarning[] {
  const warnings: CommitWarning[] = [];
  if (recipient.seen === "unchecked") {
    const where = recipient.hub === null ? "the hub" : `the hub at ${recipient.hub}`;
    warnings.push({
      code: "destination_not_checked",
      message: `destination ${value.to_contract} not checked: ${where} could not be asked (${recipient.why}); the SEND is recorded, and the hub checks its destination at push`,
    });
  }
  if (typeof balance === "object" && balance !== null) {
    const why =
      "unknown" in balance
        ? `the hub's books do not tell how much ${value.asset_id} this contract holds (${balance.unknown})`
        : `the hub could not be asked (${balance.why})`;
    warnings.push({
      code: "balance_not_checked",
      message: `balance not checked: ${why}; the SEND is recorded, and the hub checks the balance at push`,
    });
  }
  return warnings;
}

/**
 * What `knownBalance` found: an amount; "none"; `{why}` when the hub could not be asked;
 * `{unknown}` when it answered and its answer leaves the amount unknown (why, for the warning);
 * `{ambiguous}` when the hub will refuse the plain id as naming several held assets.
 */
type KnownBalance =
  | number
  | "none"
  | { why: string }
  | { unknown: string }
  | { ambiguous: { sender: string; candidates: string[] } };

/**
 * The balance of `asset` this contract will have after its unpushed commits: the hub's
 * booked amount (by `issuer/asset_id`, the contract's own asset, or the one held asset of
 * that id) plus pending creates, sends and receipts. An unpushed RECV credits what its SEND
 * carries (as the hub lists it, or an unpushed SEND to this contract), so what it brings in
 * may be sent on in the same push. `{why}` when the hub could not be asked; "none" when the
 * hub answered and neither its books nor an unpushed commit mention an asset of that id (the
 * hub would refuse the SEND, -32022); `{unknown}` when the hub answered and the amount still
 * cannot be known: the books hold that id under names none of which is certainly this one
 * (several issuers, none this contract, or another issuer than the one named), an unpushed
 * commit spells it otherwise, an unpushed RECV might bring it in, or an amount in the answer
 * is not a whole number (compared with, it would let any SEND pass or refuse every one).
 * Before any of that, a plain id is resolved by the hub's own rule, applied to its books and
 * the unpushed commits as the push will apply it (plainAssetOnPush): `{ambiguous}` when it
 * names several held assets, the balance the SEND will find when it names one of another
 * issuer (the one with a positive balance among several, too).
 */
async function knownBalance(cli: Cli, key: string | undefined, asset: string): Promise<KnownBalance> {
  const wc = WorkingCopy.find(cli.cwd);
  const unpushed = wc.readCommits().slice(wc.origin().length);
  let books: Awaited<ReturnType<typeof hubAssets>>;
  let taken: TakenSend[];
  try {
    [books, taken] = await askHubWithin(2000, (signal) =>
      Promise.all([
        hubAssets(cli, { ...(key !== undefined ? { key } : {}) }, wc, signal),
        sendsTakenByUnpushed(
          clientFor(cli, hubUrl(cli, undefined, wc), readingKey(cli, key, wc), signal),
          wc.config.contract_id,
          unpushed,
        ),
      ]),
    );
  } catch (err) {
    return { why: err instanceof Error ? err.message : String(err) };
  }
  const own = wc.config.contract_id;
  const onPush = plainAssetOnPush(own, asset, books, unpushed, taken);
  if (onPush !== null && "failure" in onPush && onPush.failure === "ambiguous")
    return { ambiguous: { sender: own, candidates: onPush.candidates } };
  // Another issuer's asset, chosen as the hub chooses it: the balance it will find, exactly.
  if (onPush !== null && "key" in onPush && onPush.balance !== undefined) return onPush.balance;
  const received = taken.filter((s) => mayBe(asset, s.asset_id, s.issuer)).reduce((sum, s) => sum + s.amount, 0);
  const byName = books.balances.filter((b) => b.asset_id === asset);
  const held =
    books.balances.find((b) => `${b.issuer}/${b.asset_id}` === asset) ??
    byName.find((b) => b.issuer === own) ??
    (byName.length === 1 ? byName[0] : undefined);
  const pending = pendingChanges(unpushed).find((p) => p.asset_id === asset);
  if (held === undefined && pending === undefined && received === 0) {
    // Matched by id alone here, so a differently spelled name never refuses a SEND the hub takes.
    const id = plainId(asset);
    const booked = books.balances.filter((b) => b.asset_id === id).map((b) => `${b.issuer}/${b.asset_id}`);
    if (booked.length > 0) return { unknown: `they hold ${booked.join(", ")}, none of them certainly ${asset}` };
    const spelled = pendingChanges(unpushed).find((p) => plainId(p.asset_id) === id);
    if (spelled !== undefined) return { unknown: `an unpushed commit names it ${spelled.asset_id}` };
    if (unpushedReceipts(unpushed).size > 0) return { unknown: "an unpushed RECV may bring it in" };
    return "none";
  }
  if (held !== undefined && !isAmount(held.amount))
    return { unknown: `they give ${held.issuer}/${held.asset_id} no readable amount` };
  if (!isAmount(received)) return { unknown: "the SENDs its unpushed RECVs take carry no readable amount" };
  return (held?.amount ?? 0) + (pending?.change ?? 0) + received;
}

/** The id part of an asset name (`issuer/asset_id` or a plain `asset_id`). */
const plainId = (name: string) => name.slice(name.indexOf("/") + 1);

/**
 * Whether a SEND of `name` (issued by `issuer` when known) may be the asset the user names.
 * Generous on purpose: counting a RECV too many only leaves the overdraw to the hub's check.
 */
function mayBe(asset: string, name: string, issuer: string | null): boolean {
  if (plainId(asset) !== plainId(name)) return false;
  if (!asset.includes("/")) return true;
  const from = issuer ?? (name.includes("/") ? name.slice(0, name.indexOf("/")) : null);
  return from === null || asset === `${from}/${plainId(name)}`;
}
