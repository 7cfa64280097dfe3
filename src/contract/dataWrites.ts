import { type GenesisValue, MODEL_PATH, type Operation } from "./Commit.js";

/**
 * The state writes of a commit's operations, in order: posts and reposts at their paths,
 * rules at their `/rules/…` path, the model (and a genesis model) at `/model/default.modality`.
 */
export function dataWrites(ops: readonly Operation[]): Array<[string, unknown]> {
  const writes: Array<[string, unknown]> = [];
  for (const op of ops) {
    switch (op.method) {
      case "post":
      case "repost":
      case "rule":
        if (op.path !== undefined) writes.push([op.path, op.value]);
        break;
      case "model":
        writes.push([MODEL_PATH, op.value]);
        break;
      case "genesis": {
        const model = (op.value as GenesisValue).model;
        if (model !== null) writes.push([MODEL_PATH, model]);
        break;
      }
      default:
        break;
    }
  }
  return writes;
}
