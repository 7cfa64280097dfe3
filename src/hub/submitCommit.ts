import type { Caller } from "../api/Caller.js";
import type { SubmitCommitResult } from "../api/responses.js";
import type { SubmitCommitBody } from "../api/schemas.js";
import type { Operation, WireCommit } from "../contract/Commit.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import { acceptCommit, applyDelta, stateView } from "../contract/engine.js";
import { typeName } from "../contract/hex.js";
import { DEFAULT_LIMITS } from "../contract/limits.js";
import { ownKeys } from "../contract/memberNames.js";
import { operationsFromBody } from "../contract/operationsFromBody.js";
import { leafOf } from "../contract/StoredCommit.js";
import { validateCommitShape } from "../contract/validateCommitShape.js";
import { hubLedger } from "./assets/hubLedger.js";
import { commitStamp } from "./commitStamp.js";
import { type EngineSettings, engineContext } from "./engineContext.js";
import type { HubContext } from "./HubContext.js";

/** The fields of the field form, which a `{commit}` body may not carry beside its commit. */
const FIELD_FORM = [
  "method",
  "path",
  "value",
  "action",
  "action_labels",
  "signatures",
  "attestations",
  "parent",
] as const satisfies readonly (keyof SubmitCommitBody)[];

/**
 * `POST /contracts/:id/commits` and JSON-RPC `submitCommit` (docs/protocol.md): the fields form
 * builds one commit (the operation, then one action per label) on `parent` or the head; the
 * `{commit}` form takes a client-built commit. Re-sending the head is an idempotent 200. The
 * engine decides under the contract's lock; the store appends at the validated head.
 */
export async function submitCommit(
  hub: HubContext,
  caller: Caller,
  id: string,
  body: SubmitCommitBody,
): Promise<{ result: SubmitCommitResult; created: boolean }> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ContractError("INVALID_REQUEST", `Invalid body: expected an object, got ${typeName(body)}`, {
      reason: "body_not_object",
    });
  if (body.contract_id !== undefined && body.contract_id !== id)
    throw new ContractError(
      "INVALID_REQUEST",
      `Body contract_id ${JSON.stringify(body.contract_id)} differs from ${id}`,
      {
        reason: "contract_id_mismatch",
      },
    );
  const fields = body.commit === undefined;
  // One body, one form: beside a client-built commit, a field of the other form would be
  // dropped unseen (a signature sent that way would not be stored with the commit).
  const mixed = fields ? undefined : FIELD_FORM.find((f) => body[f] !== undefined);
  if (mixed !== undefined)
    throw new ContractError(
      "INVALID_REQUEST",
      `Invalid body: "${mixed}" belongs to the field form and cannot accompany "commit"; put it in the commit`,
      { reason: "commit_with_fields", field: mixed },
    );
  const ops = fields ? operationsFromBody(body) : null;
  const signed = body.signatures !== undefined && ownKeys(body.signatures ?? {}).length > 0;
  if (fields && signed && body.parent === undefined)
    throw new ContractError("INVALID_REQUEST", "A signed commit must name its parent", { reason: "parent_required" });
  // When the hub chose the parent and another instance moved the head before the append,
  // validate again on the new head (docs/api.md) instead of answering 409: the caller
  // then learns the real outcome (e.g. -32032 for the second RECV of a SEND).
  const hubChoseParent = fields && body.parent === undefined;
  // Big model texts are parsed in slices first; the shape check finds them parsed. A big
  // {commit} is hashed here too; the fields form's hash needs its parent, known under the lock.
  await hub.work.preparse(caller, [fields ? { data: ops } : body.commit], hub.settings.limits, fields ? undefined : id);
  for (let attempt = 1; ; attempt++) {
    try {
      return await submitLocked(hub, caller, id, body, fields, ops);
    } catch (err) {
      if (!hubChoseParent || attempt >= 5 || !isContractError(err, "CONFLICT")) throw err;
    }
  }
}

/** One attempt of submitCommit under the contract's lock. */
function submitLocked(
  hub: HubContext,
  caller: Caller,
  id: string,
  body: SubmitCommitBody,
  fields: boolean,
  ops: Operation[] | null,
): Promise<{ result: SubmitCommitResult; created: boolean }> {
  return hub.locks.run(id, async () => {
    const { state } = await hub.access(caller, id, "write");
    // Both forms are shaped here, once; the engine then takes the commit as validated. The
    // fields form is hashed here; a client-built {commit} must hash to the hash it claims
    // before that hash can make it an idempotent re-send of the head, as in a push.
    const parent = body.parent === undefined ? state.head : body.parent;
    const limits = hub.settings.limits ?? DEFAULT_LIMITS;
    // A big value is hashed in slices first (commitHashInSlices.ts), and so is the signed
    // message of a big attestation, bound to this parent (attestationHashInSlices.ts): the
    // shape check and the signature check find the hashes.
    const prepared = { parent, data: ops, head: { attestations: body.attestations } };
    const hashing = fields ? hub.work.prehash(caller, id, [prepared], limits) : undefined;
    if (hashing !== undefined) await hashing;
    const commit: WireCommit = fields
      ? validateCommitShape(
          {
            parent,
            data: ops,
            head: {
              parent,
              signatures: body.signatures ?? {},
              ...(body.attestations !== undefined ? { attestations: body.attestations } : {}),
            },
          },
          { contractId: id, limits, computeHash: true },
        )
      : validateCommitShape(body.commit, { contractId: id, limits });
    if (commit.hash === state.head) {
      // An idempotent retry of the commit that is already the head.
      const stored = (await hub.store.getCommitAt(id, state.length - 1))!;
      const result = {
        commit_hash: stored.hash,
        index: stored.index,
        new_state: stateView(state),
        timestamp: stored.timestamp,
        ...leafOf(stored),
      };
      return { result, created: false };
    }
    const ledger = hubLedger(hub, caller, id, () => state.data);
    const settings: EngineSettings = Object.assign({}, hub.settings, { assets: ledger }, hub.work.forRequest(caller));
    const ctx = engineContext(hub.store, id, state.length, [], settings, {
      timestamp: commitStamp(hub.now, state),
      prevalidated: true,
    });
    const { stored, delta } = await acceptCommit(state, commit, ctx);
    await hub.append(id, state.head, [stored], ledger.extras(), caller);
    applyDelta(state, delta);
    hub.appended(state, 1);
    const view = stateView(state);
    hub.publish(id, [stored], [view]);
    return {
      result: {
        commit_hash: stored.hash,
        index: stored.index,
        new_state: view,
        timestamp: stored.timestamp,
        ...leafOf(stored),
      },
      created: true,
    };
  });
}
