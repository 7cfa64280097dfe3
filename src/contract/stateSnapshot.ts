import { ContractState, type GoverningModel } from "./ContractState.js";
import { sha256Hex } from "./commitHash.js";
import { compileGoverningModel, parseRuleRecord } from "./compileGoverningModel.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";

/**
 * A contract's state as text, so a hub can load a long contract from its newest snapshot
 * plus the commits after it instead of replaying the whole log (docs/storage.md). The
 * compiled parts (the model's transition system, the rules' formulas) are not stored: their
 * source texts are, and compiling a text is deterministic, so the model states `current`
 * numbers are the same states after loading. Bump SNAPSHOT_FORMAT when the text changes
 * shape: snapshots of another format are ignored (the hub replays) and rewritten.
 */
export const SNAPSHOT_FORMAT = 1;

interface SnapshotBody {
  contract_id: string;
  owner: string;
  created_at: number;
  head: string;
  length: number;
  model: string | null;
  current: number[];
  rules: { text: string; path: string | null; anchor: number }[];
  /** State entries in the state's own order (reads list them in it). */
  data: [string, unknown][];
}

/** The snapshot text of `state` (one JSON document). */
export function snapshotText(state: ContractState): string {
  const body: SnapshotBody = {
    contract_id: state.contractId,
    owner: state.owner,
    created_at: state.createdAt,
    head: state.head,
    length: state.length,
    model: state.model?.text ?? null,
    current: state.current,
    rules: state.rules.map((r) => ({ text: r.text, path: r.path, anchor: r.anchorIndex })),
    data: [...state.data],
  };
  return JSON.stringify(body);
}

/** Lower-case hex SHA-256 of a snapshot text (stored beside it, checked before it is used). */
export const snapshotDigest = (text: string): string => sha256Hex(text);

/**
 * The state a snapshot text describes, its model and rules compiled again from their texts
 * (by `compile`: the hub's compiles a big model in slices). Throws on a text that is not a
 * snapshot (the caller then replays the log).
 */
export async function stateFromSnapshot(
  text: string,
  limits: Limits = DEFAULT_LIMITS,
  compile: (text: string, limits: Limits) => GoverningModel | Promise<GoverningModel> = compileGoverningModel,
): Promise<ContractState> {
  const b = JSON.parse(text) as SnapshotBody;
  if (typeof b !== "object" || b === null || !Array.isArray(b.data) || !Array.isArray(b.current))
    throw new Error("not a state snapshot");
  const model = b.model === null ? null : await compile(b.model, limits);
  if (model !== null && b.current.some((s) => !Number.isInteger(s) || s < 0 || s >= model.lts.stateCount))
    throw new Error("snapshot names model states the model does not have");
  return new ContractState({
    contractId: b.contract_id,
    owner: b.owner,
    createdAt: b.created_at,
    head: b.head,
    length: b.length,
    data: new Map(b.data),
    model,
    current: b.current,
    rules: b.rules.map((r) => parseRuleRecord(r.text, r.path, r.anchor)),
  });
}
