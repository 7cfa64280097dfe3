import type { Operation } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { typeName } from "./hex.js";
import { normalizeOperation } from "./validateCommitShape.js";

/** The fields of a commit request that name its operations (types are checked here, not assumed). */
export interface CommitFields {
  method?: unknown;
  path?: unknown;
  value?: unknown;
  action?: unknown;
  action_labels?: unknown;
}

function invalid(message: string, reason: string): never {
  throw new ContractError("INVALID_REQUEST", message, { reason });
}

/**
 * The operations of a `POST /contracts/:id/commits` field body (docs/protocol.md), in order:
 * the operation of `method/path/value` (none when `method` is absent or `"action"`; an
 * `{"action":"X"}` or `{"method":"action","value":"X"}` body is the action X, and a path or a
 * disagreeing value beside it is refused), then one `action` operation per
 * `action_labels` entry. Each is normalized by the engine's operation decoder.
 */
export function operationsFromBody(body: CommitFields): Operation[] {
  const ops: Operation[] = [];
  const { method } = body;
  if (method !== undefined && typeof method !== "string")
    invalid(`Cannot build commit: method must be a string, got ${typeName(method)}`, "method_type");
  const m = method?.toLowerCase();
  if (body.action !== undefined && m !== undefined && m !== "action")
    invalid(`Cannot build commit: "action" is only allowed with method "action", got "${m}"`, "action_with_method");
  if (m === undefined || m === "action") {
    if (body.action !== undefined || (m === "action" && (body.value !== undefined || body.path !== undefined))) {
      // Every field goes to the decoder, which refuses a path beside an action and a value
      // that disagrees with its label, as in a push: none is dropped unseen.
      const raw: Record<string, unknown> = { method: "action" };
      if (body.action !== undefined) raw.action = body.action;
      if (body.value !== undefined) raw.value = body.value;
      if (body.path !== undefined) raw.path = body.path;
      ops.push(normalizeOperation(raw, ops.length));
    } else if (m === undefined && (body.path !== undefined || body.value !== undefined))
      invalid("Cannot build commit: path and value need a method", "method_missing");
  } else {
    const raw: Record<string, unknown> = { method: m };
    if (body.path !== undefined) raw.path = body.path;
    if (body.value !== undefined) raw.value = body.value;
    ops.push(normalizeOperation(raw, 0));
  }
  const labels = body.action_labels ?? [];
  if (!Array.isArray(labels))
    invalid(`Cannot build commit: action_labels must be an array, got ${typeName(labels)}`, "action_labels_type");
  for (const label of labels) ops.push(normalizeOperation({ method: "action", value: label }, ops.length));
  if (ops.length === 0) invalid("Cannot build commit: the body names no operation and no action", "empty_commit");
  return ops;
}
