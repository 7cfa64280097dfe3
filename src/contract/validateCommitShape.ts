import {
  ASSET_ID_PATTERN,
  type Attestation,
  CONTRACT_ID_PATTERN,
  type CommitHead,
  isActionLabel,
  isMethod,
  type Operation,
  type WireCommit,
} from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { computeCommitHash } from "./commitHash.js";
import { preparedCommitHash } from "./commitHashInSlices.js";
import { decodeHash, decodeSignature, isLowerHex, normalizeIdentity, parseIdentity, typeName } from "./hex.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import { ownKeys } from "./memberNames.js";
import { checkOperationPaths, checkPathSyntax } from "./pathTypes.js";

/** What shape validation needs to know besides the commit. */
export interface ShapeContext {
  /** The contract the commit is for (from the route; it is part of the hash). */
  contractId: string;
  limits?: Limits;
  /**
   * The commit was built by the hub from request fields and carries no hash yet: the hash is
   * computed here, once, from the normalized operations, instead of being checked.
   */
  computeHash?: boolean;
  /**
   * The commit is read back from the hub's own store (a trusted replay: loading a contract,
   * stepping a cached state forward, a subscription's replay). Its hash is recomputed here,
   * so its values are those checked when it was appended: `.wasm` values are not validated
   * again (hundreds of milliseconds on the event loop for a module of megabytes; the store
   * is trusted as for its signers, docs/storage.md). Never for a log from elsewhere
   * (`verify`, a pull into a working copy).
   */
  stored?: boolean;
}

const OPERATION_KEYS = new Set(["method", "path", "value", "action"]);
const ATTESTATION_KEYS = new Set(["oracle", "claim", "value", "signature"]);
const GENESIS_KEYS = new Set(["model", "rules", "owner"]);
/** The own keys, in order, of a commit, an operation and a head in normal form (hasExactly). */
const COMMIT_FIELDS = ["hash", "parent", "data", "head"];
const METHOD_VALUE = ["method", "value"];
const METHOD_PATH_VALUE = ["method", "path", "value"];
const PARENT_SIGNATURES = ["parent", "signatures"];
/** Methods whose operations carry no path (docs/protocol.md). */
const PATHLESS = new Set(["genesis", "action", "create", "send", "recv"]);
/** Methods whose operations must name a path. */
const PATH_REQUIRED = new Set(["post", "repost"]);

function invalid(message: string, reason: string, extra: Record<string, unknown> = {}): never {
  throw new ContractError("INVALID_REQUEST", message, { reason, ...extra });
}

function tooMany(what: string, limit: keyof Limits, max: number, got: number): never {
  throw new ContractError("PAYLOAD_TOO_LARGE", `Cannot accept commit: ${got} ${what} exceed the limit of ${max}`, {
    reason: "limit_exceeded",
    limit,
    max,
    actual: got,
  });
}

/**
 * `v` (a plain object) is exactly what normalizing it would build: an ordinary object whose
 * own keys are `keys`, in that order. The checks before have read each value; the normal
 * form holds the same ones, so `v` can be kept instead of copied. The keys of a wide parsed
 * object (a commit padded with junk members) are the parser's, not listed again (ownKeys).
 */
function hasExactly(v: object, keys: readonly string[]): boolean {
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  const own = ownKeys(v);
  return own.length === keys.length && own.every((k, i) => k === keys[i]);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Structural validation of a push-format commit before any signature is checked: every
 * field's type, methods, operation/signature/attestation limits, action labels, asset
 * operation values, `head.parent` = `parent`, the genesis position, the recomputed hash,
 * and the path/type rules of docs/language.md. Returns the normalized commit (action labels
 * moved to `value`, identity signature keys written `ed25519:<hex>`, unknown head fields
 * dropped). Malformed fields are INVALID_REQUEST, exceeded limits PAYLOAD_TOO_LARGE,
 * contract-rule violations (hash mismatch, path types, asset values) VALIDATION_FAILED.
 */
export function validateCommitShape(input: unknown, ctx: ShapeContext): WireCommit {
  const limits = ctx.limits ?? DEFAULT_LIMITS;
  if (!CONTRACT_ID_PATTERN.test(ctx.contractId)) {
    invalid(`Cannot accept commit: contract id ${JSON.stringify(ctx.contractId)} is malformed`, "contract_id");
  }
  if (!isPlainObject(input))
    invalid(`Cannot accept commit: expected an object, got ${typeName(input)}`, "commit_not_object");
  const hash = input.hash;
  // Well-formed hex is only checked here (decoding it would allocate for nothing); the
  // decoders run for a malformed value, to throw their precise error.
  if (!ctx.computeHash && !isLowerHex(hash, 32)) decodeHash(hash, "hash");
  const parent = input.parent;
  if (parent !== null && !isLowerHex(parent, 32)) decodeHash(parent, "parent");
  const data = normalizeOperations(input.data, limits);
  const head = normalizeHead(input.head, parent as string | null, limits);

  const first = data[0]!;
  if ((parent === null) !== (first.method === "genesis") || data.slice(1).some((op) => op.method === "genesis")) {
    throw new ContractError(
      "VALIDATION_FAILED",
      parent === null
        ? "Cannot accept commit: a commit without parent must be a genesis, whose first operation is genesis"
        : "Cannot accept commit: a genesis operation may only open a contract's first commit",
      { reason: "genesis_position" },
    );
  }
  if (data.filter((op) => op.method === "model").length > 1) {
    throw new ContractError("VALIDATION_FAILED", "Cannot accept commit: a commit carries at most one model operation", {
      reason: "multiple_models",
    });
  }

  // A big commit was hashed in slices before (commitHashInSlices.ts); the list is empty otherwise.
  const computed =
    preparedCommitHash(ctx.contractId, parent as string | null, data) ??
    computeCommitHash(ctx.contractId, parent as string | null, data);
  if (!ctx.computeHash && computed !== hash) {
    throw new ContractError(
      "VALIDATION_FAILED",
      `Cannot accept commit: hash "${hash}" does not match its content, expected "${computed}"`,
      {
        reason: "hash_mismatch",
        expected: computed,
        actual: hash,
      },
    );
  }
  for (const [i, op] of data.entries()) {
    try {
      checkOperationPaths(op, limits, ctx.stored === true);
    } catch (err) {
      if (err instanceof ContractError && err.details) err.details.operation = i;
      throw err;
    }
  }
  // A commit already in normal form is returned as it came, and one that is not keeps what
  // was: its hash string (equal to `computed`), operations, head and signatures. A push held
  // the parsed body and a normalized copy of each of its commits until the append, and each
  // young-generation collection of its shape checks copied both (docs/storage.md).
  if (!ctx.computeHash && data === input.data && head === input.head && hasExactly(input, COMMIT_FIELDS))
    return input as unknown as WireCommit;
  return { hash: ctx.computeHash ? computed : (hash as string), parent: parent as string | null, data, head };
}

/** Validates and normalizes a commit's `data` array (count limit and each operation). */
export function normalizeOperations(raw: unknown, limits: Limits = DEFAULT_LIMITS): Operation[] {
  if (!Array.isArray(raw))
    invalid(`Cannot accept commit: data must be an array, got ${typeName(raw)}`, "data_not_array");
  if (raw.length === 0) invalid("Cannot accept commit: data must hold at least one operation", "data_empty");
  if (raw.length > limits.operationsPerCommit) {
    tooMany("operations", "operationsPerCommit", limits.operationsPerCommit, raw.length);
  }
  const ops = raw.map((op, i) => normalizeOperation(op, i));
  return Object.getPrototypeOf(raw) === Array.prototype && ops.every((op, i) => op === raw[i]) ? raw : ops;
}

/**
 * Validates one operation's structure and returns it normalized: `{method, path?, value?}`
 * with an `action` field moved to `value`. Path types are not checked here (see
 * checkOperationPaths), asset values are.
 */
export function normalizeOperation(raw: unknown, index = 0): Operation {
  const at = `data[${index}]`;
  if (!isPlainObject(raw))
    invalid(`Cannot accept ${at}: expected an object, got ${typeName(raw)}`, "operation_not_object", {
      operation: index,
    });
  for (const key of ownKeys(raw)) {
    if (!OPERATION_KEYS.has(key))
      invalid(`Cannot accept ${at}: unknown field "${key}"`, "unknown_field", { operation: index, field: key });
  }
  const method = raw.method;
  if (!isMethod(method)) {
    const hint = typeof method === "string" && isMethod(method.toLowerCase()) ? " (methods are lower case)" : "";
    invalid(`Cannot accept ${at}: unknown method ${JSON.stringify(method)}${hint}`, "unknown_method", {
      operation: index,
    });
  }
  const { path, value } = raw;
  if (path !== undefined) {
    if (typeof path !== "string")
      invalid(`Cannot accept ${at}: path must be a string, got ${typeName(path)}`, "path_not_string", {
        operation: index,
      });
    if (PATHLESS.has(method))
      invalid(`Cannot accept ${at}: a ${method} operation has no path`, "path_not_allowed", { operation: index });
    checkPathSyntax(path);
  } else if (PATH_REQUIRED.has(method)) {
    invalid(`Cannot accept ${at}: a ${method} operation needs a path`, "path_missing", { operation: index });
  }
  if (raw.action !== undefined && method !== "action") {
    invalid(`Cannot accept ${at}: only an action operation carries an "action" field`, "unknown_field", {
      operation: index,
      field: "action",
    });
  }
  let normal = value;
  switch (method) {
    case "action":
      normal = actionLabel(raw, at, index);
      break;
    case "genesis":
      checkGenesisValue(value, at, index);
      break;
    case "create":
      checkCreate(value);
      break;
    case "send":
      checkSend(value);
      break;
    case "recv":
      checkRecv(value);
      break;
    default:
      if (value === undefined)
        invalid(`Cannot accept ${at}: a ${method} operation needs a value`, "value_missing", { operation: index });
  }
  if (hasExactly(raw, path === undefined ? METHOD_VALUE : METHOD_PATH_VALUE)) return raw as unknown as Operation;
  const out: Operation = { method };
  if (path !== undefined) out.path = path;
  out.value = normal;
  return out;
}

function actionLabel(raw: Record<string, unknown>, at: string, index: number): string {
  const { value, action } = raw;
  if (value !== undefined && action !== undefined && value !== action) {
    invalid(
      `Cannot accept ${at}: "action" ${JSON.stringify(action)} and "value" ${JSON.stringify(value)} disagree`,
      "action_conflict",
      {
        operation: index,
      },
    );
  }
  const label = value ?? action;
  if (!isActionLabel(label)) {
    invalid(
      `Cannot accept ${at}: action label ${JSON.stringify(label)} must match ^[A-Z][A-Z0-9_]{0,63}$ and not be a method name`,
      "action_label",
      { operation: index },
    );
  }
  return label;
}

function checkGenesisValue(value: unknown, at: string, index: number): void {
  if (!isPlainObject(value))
    genesisInvalid(at, index, `must be an object {model, rules, owner}, got ${typeName(value)}`);
  for (const key of ownKeys(value)) if (!GENESIS_KEYS.has(key)) genesisInvalid(at, index, `has unknown field "${key}"`);
  if (value.model !== null && typeof value.model !== "string")
    genesisInvalid(at, index, "model must be a string or null");
  if (!Array.isArray(value.rules) || value.rules.some((r) => typeof r !== "string")) {
    genesisInvalid(at, index, "rules must be an array of strings");
  }
  parseIdentity(value.owner, "genesis owner", undefined, "VALIDATION_FAILED");
}

function genesisInvalid(at: string, index: number, why: string): never {
  invalid(`Cannot accept ${at}: genesis value ${why}`, "genesis_value", { operation: index });
}

/** Asset operation failures are VALIDATION_FAILED with the JSON-RPC code in `details.rpc_code`. */
function assetReject(operation: "CREATE" | "SEND" | "RECV", reason: string, rpcCode: number, id: string): never {
  throw new ContractError("VALIDATION_FAILED", `${operation} rejected: ${reason}`, { reason: id, rpc_code: rpcCode });
}

function exactKeys(operation: "CREATE" | "SEND" | "RECV", value: unknown, keys: string[]): Record<string, unknown> {
  if (!isPlainObject(value))
    assetReject(
      operation,
      `value must be an object {${keys.join(", ")}}, got ${typeName(value)}`,
      -32602,
      "asset_value",
    );
  for (const k of keys) if (!(k in value)) assetReject(operation, `value is missing "${k}"`, -32602, "asset_value");
  for (const k of ownKeys(value))
    if (!keys.includes(k)) assetReject(operation, `value has unknown field "${k}"`, -32602, "asset_value");
  return value;
}

function positiveInteger(operation: "CREATE" | "SEND", name: string, v: unknown): void {
  if (!Number.isSafeInteger(v) || (v as number) <= 0) {
    assetReject(operation, `${name} must be a positive integer, got ${JSON.stringify(v)}`, -32602, "asset_value");
  }
}

function checkCreate(value: unknown): void {
  const v = exactKeys("CREATE", value, ["asset_id", "quantity", "divisibility"]);
  if (typeof v.asset_id !== "string" || !ASSET_ID_PATTERN.test(v.asset_id)) {
    assetReject(
      "CREATE",
      `asset_id ${JSON.stringify(v.asset_id)} must match ^[A-Za-z0-9_.-]{1,64}$`,
      -32602,
      "asset_value",
    );
  }
  positiveInteger("CREATE", "quantity", v.quantity);
  positiveInteger("CREATE", "divisibility", v.divisibility);
}

function checkSend(value: unknown): void {
  const v = exactKeys("SEND", value, ["asset_id", "to_contract", "amount"]);
  const id = v.asset_id;
  const slash = typeof id === "string" ? id.indexOf("/") : -1;
  const ok =
    typeof id === "string" &&
    (slash < 0
      ? ASSET_ID_PATTERN.test(id)
      : CONTRACT_ID_PATTERN.test(id.slice(0, slash)) && ASSET_ID_PATTERN.test(id.slice(slash + 1)));
  if (!ok)
    assetReject(
      "SEND",
      `asset_id ${JSON.stringify(id)} must be <asset_id> or <issuer_contract>/<asset_id>`,
      -32602,
      "asset_value",
    );
  if (typeof v.to_contract !== "string" || !CONTRACT_ID_PATTERN.test(v.to_contract)) {
    assetReject("SEND", `to_contract ${JSON.stringify(v.to_contract)} is not a contract id`, -32602, "asset_value");
  }
  if (!Number.isSafeInteger(v.amount))
    assetReject("SEND", `amount must be an integer, got ${JSON.stringify(v.amount)}`, -32602, "asset_value");
  // Error -32020 (docs/assets.md) is the first SEND check: a zero or negative amount.
  if ((v.amount as number) <= 0)
    assetReject("SEND", `amount must be greater than 0, got ${v.amount}`, -32020, "zero_amount");
}

function checkRecv(value: unknown): void {
  const v = exactKeys("RECV", value, ["send_commit_id"]);
  if (typeof v.send_commit_id !== "string" || !/^[0-9a-f]{64}$/.test(v.send_commit_id)) {
    assetReject(
      "RECV",
      `send_commit_id must be a commit hash (64 lower-case hex characters), got ${JSON.stringify(v.send_commit_id)}`,
      -32602,
      "asset_value",
    );
  }
}

/** Validates `head`: parent echo, signatures (keys: `.id` state paths or identities), attestations. */
function normalizeHead(raw: unknown, parent: string | null, limits: Limits): CommitHead {
  if (!isPlainObject(raw))
    invalid(`Cannot accept commit: head must be an object, got ${typeName(raw)}`, "head_not_object");
  if (raw.parent !== parent) {
    invalid(
      `Cannot accept commit: head.parent ${JSON.stringify(raw.parent)} differs from parent ${JSON.stringify(parent)}`,
      "head_parent_mismatch",
    );
  }
  const sigsRaw = raw.signatures ?? {};
  if (!isPlainObject(sigsRaw))
    invalid(
      `Cannot accept commit: head.signatures must be an object, got ${typeName(sigsRaw)}`,
      "signatures_not_object",
    );
  // Counted before anything is listed: a wide parsed object's names are known (memberNames.ts).
  const signers = ownKeys(sigsRaw);
  if (signers.length > limits.signaturesPerCommit)
    tooMany("signatures", "signaturesPerCommit", limits.signaturesPerCommit, signers.length);
  const signatures: Record<string, string> = {};
  for (const key of signers) {
    const sig = sigsRaw[key];
    const signer = signerKey(key);
    if (Object.hasOwn(signatures, signer))
      invalid(`Cannot accept commit: signer "${signer}" appears twice in head.signatures`, "duplicate_signer", {
        signer,
      });
    if (!isLowerHex(sig, 64)) decodeSignature(sig, `head.signatures["${key}"]`);
    signatures[signer] = sig as string;
  }
  const head: CommitHead = { parent, signatures };
  if (raw.attestations !== undefined) {
    if (!Array.isArray(raw.attestations))
      invalid(
        `Cannot accept commit: head.attestations must be an array, got ${typeName(raw.attestations)}`,
        "attestations_not_array",
      );
    if (raw.attestations.length > limits.attestationsPerCommit) {
      tooMany("attestations", "attestationsPerCommit", limits.attestationsPerCommit, raw.attestations.length);
    }
    head.attestations = raw.attestations.map((a, i) => normalizeAttestation(a, i));
    return head;
  }
  const same = raw.signatures === sigsRaw && hasExactly(sigsRaw, Object.keys(signatures));
  return same && hasExactly(raw, PARENT_SIGNATURES) ? (raw as unknown as CommitHead) : head;
}

/** A signature key is an `.id` state path (kept) or an identity in either spelling (normalized). */
function signerKey(key: string): string {
  if (key.startsWith("/")) {
    try {
      checkPathSyntax(key);
    } catch {
      invalid(`Cannot accept commit: signer path "${key}" is malformed`, "signer_key", { signer: key });
    }
    if (!key.endsWith(".id"))
      invalid(`Cannot accept commit: signer path "${key}" must be an .id path`, "signer_key", { signer: key });
    return key;
  }
  return normalizeIdentity(key, `signer "${key.slice(0, 80)}"`, undefined, "VALIDATION_FAILED");
}

function normalizeAttestation(raw: unknown, i: number): Attestation {
  const at = `head.attestations[${i}]`;
  if (!isPlainObject(raw))
    invalid(`Cannot accept ${at}: expected an object, got ${typeName(raw)}`, "attestation_shape");
  for (const key of ownKeys(raw))
    if (!ATTESTATION_KEYS.has(key)) invalid(`Cannot accept ${at}: unknown field "${key}"`, "attestation_shape");
  if (typeof raw.claim !== "string" || raw.claim.length === 0)
    invalid(`Cannot accept ${at}: claim must be a non-empty string`, "attestation_shape");
  if (raw.value === undefined) invalid(`Cannot accept ${at}: value is missing`, "attestation_shape");
  if (!isLowerHex(raw.signature, 64)) decodeSignature(raw.signature, `${at}.signature`);
  return {
    oracle: normalizeIdentity(raw.oracle, `${at}.oracle`, undefined, "VALIDATION_FAILED"),
    claim: raw.claim,
    value: raw.value,
    signature: raw.signature as string,
  };
}
