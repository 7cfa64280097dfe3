import { randomBytes } from "node:crypto";
import type { Caller } from "../api/Caller.js";
import type { CreateContractBody } from "../api/schemas.js";
import { checkNewContractId } from "../contract/Commit.js";
import { ContractError } from "../contract/ContractError.js";
import { acceptGenesis, buildCommit, genesisData, stateView } from "../contract/engine.js";
import { type EngineSettings, engineContext } from "./engineContext.js";
import { genesisInput, readersOf } from "./genesisInput.js";
import type { HubContext } from "./HubContext.js";

/**
 * `POST /contracts`: the genesis built from the body (a template expanded first), decided by
 * the engine under the new id's lock, stored with the contract row. A taken id is CONFLICT;
 * the head of a private contract is told only to its readers.
 */
export async function createContract(
  hub: HubContext,
  caller: Caller,
  body: CreateContractBody,
): Promise<{ contract_id: string; created_at: number }> {
  if (caller.identity === null) {
    throw new ContractError("UNAUTHORIZED", "Authentication is required to create a contract", {
      reason: "unauthenticated",
    });
  }
  const input = genesisInput(caller.identity, body, hub.templates);
  const id = body.contract_id ?? `c_${randomBytes(12).toString("hex")}`;
  checkNewContractId(id, "contract_id");
  const readers = readersOf(body.readers);
  const commit = buildCommit(id, null, genesisData(input));
  // A big model is parsed in slices here, outside the lock; the checks below find it parsed.
  await hub.work.preparse(caller, [commit], hub.settings.limits);
  return hub.locks.run(id, async () => {
    const existing = await hub.store.getContract(id);
    if (existing !== null) {
      const readable =
        !existing.private ||
        (await hub.accessTo(caller, existing, "read").then(
          () => true,
          () => false,
        ));
      throw new ContractError("CONFLICT", `Contract ${id} already exists`, {
        reason: "contract_exists",
        ...(readable ? { head: existing.head } : {}),
      });
    }
    const timestamp = hub.now();
    const settings: EngineSettings = Object.assign({}, hub.settings, hub.work.forRequest(caller));
    const ctx = engineContext(hub.store, id, 0, [], settings, { timestamp });
    const { state, stored } = await acceptGenesis(id, commit, ctx);
    const contract = {
      owner: caller.identity!,
      createdAt: timestamp,
      private: readers !== null,
      readers: readers ?? [],
    };
    await hub.append(id, null, [stored], { contract });
    hub.appended(state, 1);
    hub.publish(id, [stored], [stateView(state)]);
    return { contract_id: id, created_at: timestamp };
  });
}
