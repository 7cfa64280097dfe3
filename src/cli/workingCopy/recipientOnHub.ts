/**
 * What the hub shows of a SEND's destination before `send` writes anything (docs/cli.md,
 * "Moving an asset between contracts"). The hub answers a private contract that the caller
 * may not read exactly like a missing one (404 `contract_not_found`), so a 404 only says the
 * hub shows this key no such contract: it is never reported as "does not exist".
 */
import { CONTRACT_ID_PATTERN } from "../../contract/Commit.js";
import { isContractError } from "../../contract/ContractError.js";
import type { Cli } from "../cliContext.js";
import { askHubWithin } from "./askHubWithin.js";
import { clientFor, hubUrl, readingKey } from "./hubAccess.js";
import type { WorkingCopy } from "./WorkingCopy.js";

/**
 * `shown`: the hub holds it and lets this key see it (a 403 also says it is there);
 * `hidden`: the hub shows this key no contract of that id (none, or private to others);
 * `unchecked`: the hub could not be asked or did not answer as the hub (`why`);
 * `not_asked`: the id is not a contract id at all, which the local engine refuses itself.
 */
export type RecipientSeen =
  | { seen: "shown" | "hidden" | "not_asked" }
  | { seen: "unchecked"; hub: string | null; why: string };

/** How long `send` waits for the hub's word, as it does for the balance. */
const HUB_WAIT_MS = 2000;

/** Asks the hub (with the key that reads, for private contracts shared with it) about `to`. */
export async function recipientOnHub(
  cli: Cli,
  key: string | undefined,
  wc: WorkingCopy,
  to: string,
): Promise<RecipientSeen> {
  if (!CONTRACT_ID_PATTERN.test(to)) return { seen: "not_asked" };
  // The working copy's own contract was created on its hub by init, or cloned from it.
  if (to === wc.config.contract_id) return { seen: "shown" };
  let url: string | null = null;
  try {
    const hub = hubUrl(cli, undefined, wc);
    url = hub;
    const reader = readingKey(cli, key, wc);
    await askHubWithin(HUB_WAIT_MS, (signal) => clientFor(cli, hub, reader, signal).getState(to));
    return { seen: "shown" };
  } catch (err) {
    if (isContractError(err, "NOT_FOUND") && err.details?.reason === "contract_not_found") return { seen: "hidden" };
    if (isContractError(err, "FORBIDDEN")) return { seen: "shown" };
    return { seen: "unchecked", hub: url, why: err instanceof Error ? err.message : String(err) };
  }
}
