import assert from "node:assert/strict";
import { test } from "node:test";
import { assertContractError } from "./assertContractError.js";
import { buildWireCommit } from "./buildWireCommit.js";
import type { Operation, WireCommit } from "./Commit.js";
import { computeCommitHash, verifyCommitSignature } from "./commitHash.js";
import { formatIdentity } from "./hex.js";
import { generateKeyPair } from "./keys.js";
import { withLimits } from "./limits.js";
import { normalizeOperation, validateCommitShape } from "./validateCommitShape.js";

const owner = generateKeyPair();
const OWNER = formatIdentity(owner.publicKey);
const PARENT = "11".repeat(32);
const ctx = { contractId: "c1" };
const genesisOp: Operation = {
  method: "genesis",
  value: { model: "model m { a -> a [+GO] }", rules: [], owner: OWNER },
};

/** A raw commit whose hash is right for its (possibly malformed) content, so only the tested field is wrong. */
function commit(
  data: unknown[],
  parent: string | null = PARENT,
  head?: Record<string, unknown>,
): Record<string, unknown> {
  let hash = "00".repeat(32);
  try {
    hash = computeCommitHash("c1", parent, data as Operation[]);
  } catch {
    // content the hash cannot cover: the test expects an earlier error anyway
  }
  return { hash, parent, data, head: head ?? { parent, signatures: {} } };
}

const post = { method: "post", path: "/notes/a.text", value: "hi" };

test("a genesis and a signed follow-up validate and come back normalized", () => {
  const g = buildWireCommit(
    "c1",
    null,
    [genesisOp, { method: "post", path: "/users/owner.id", value: owner.publicKey.toString("hex") }],
    [{ key: owner.seed }],
  );
  assert.deepEqual(validateCommitShape(JSON.parse(JSON.stringify(g)), ctx), g);
  const next = buildWireCommit(
    "c1",
    g.hash,
    [{ method: "action", value: "GO" }],
    [{ key: owner.seed, as: "/users/owner.id" }],
  );
  const out = validateCommitShape(next, ctx);
  assert.equal(verifyCommitSignature(out.hash, owner.publicKey, out.head.signatures["/users/owner.id"]!), true);
});

test("an action label may arrive in an `action` field; it is hashed and returned as `value`", () => {
  const data = [{ method: "action", value: "DEPOSIT" }];
  const hash = computeCommitHash("c1", PARENT, data as Operation[]);
  const out = validateCommitShape(
    { hash, parent: PARENT, data: [{ method: "action", action: "DEPOSIT" }], head: { parent: PARENT } },
    ctx,
  );
  assert.deepEqual(out.data, data);
  assert.deepEqual(out.head, { parent: PARENT, signatures: {} });
  assert.deepEqual(normalizeOperation({ method: "action", action: "X", value: "X" }), { method: "action", value: "X" });
  assertContractError(
    () => normalizeOperation({ method: "action", action: "X", value: "Y" }),
    "INVALID_REQUEST",
    "action_conflict",
  );
});

test("action labels: pattern and not a method name", () => {
  for (const label of ["A", "DEPOSIT_2", `A${"B".repeat(63)}`]) normalizeOperation({ method: "action", value: label });
  for (const label of [
    "deposit",
    "_A",
    "1A",
    "A-B",
    `A${"B".repeat(64)}`,
    "POST",
    "GENESIS",
    "RECV",
    "",
    5,
    undefined,
  ]) {
    assertContractError(
      () => normalizeOperation({ method: "action", value: label }),
      "INVALID_REQUEST",
      "action_label",
    );
  }
});

test("the recomputed hash must match, over contract id and parent too", () => {
  const c = commit([post]);
  const d = assertContractError(
    () => validateCommitShape({ ...c, hash: "22".repeat(32) }, ctx),
    "VALIDATION_FAILED",
    "hash_mismatch",
  );
  assert.equal(d.expected, c.hash);
  assertContractError(() => validateCommitShape(c, { contractId: "c2" }), "VALIDATION_FAILED", "hash_mismatch");
  assertContractError(
    () => validateCommitShape({ ...c, data: [{ ...post, value: "ho" }] }, ctx),
    "VALIDATION_FAILED",
    "hash_mismatch",
  );
});

test("malformed hex in hash, parent and signatures is INVALID_REQUEST", () => {
  const c = commit([post]);
  assertContractError(
    () => validateCommitShape({ ...c, hash: (c.hash as string).toUpperCase() }, ctx),
    "INVALID_REQUEST",
    "hex_upper_case",
  );
  assertContractError(() => validateCommitShape({ ...c, hash: (c.hash as string).slice(1) }, ctx), "INVALID_REQUEST");
  assertContractError(() => validateCommitShape({ ...c, parent: "zz" }, ctx), "INVALID_REQUEST", "hex_bad_char");
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { parent: PARENT, signatures: { [OWNER]: "ab" } }), ctx),
    "INVALID_REQUEST",
    "hex_wrong_length",
  );
});

test("head.parent must echo parent; head and signatures must be objects", () => {
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { parent: null, signatures: {} }), ctx),
    "INVALID_REQUEST",
    "head_parent_mismatch",
  );
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { signatures: {} }), ctx),
    "INVALID_REQUEST",
    "head_parent_mismatch",
  );
  assertContractError(
    () => validateCommitShape({ ...commit([post]), head: [] }, ctx),
    "INVALID_REQUEST",
    "head_not_object",
  );
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { parent: PARENT, signatures: [] }), ctx),
    "INVALID_REQUEST",
    "signatures_not_object",
  );
});

test("signature keys: .id state paths kept, identities normalized, duplicates refused", () => {
  const sig = "ab".repeat(64);
  const hex = owner.publicKey.toString("hex");
  const out = validateCommitShape(
    commit([post], PARENT, { parent: PARENT, signatures: { [hex]: sig, "/users/a.id": sig } }),
    ctx,
  );
  assert.deepEqual(Object.keys(out.head.signatures).sort(), ["/users/a.id", OWNER]);
  assertContractError(
    () =>
      validateCommitShape(commit([post], PARENT, { parent: PARENT, signatures: { [hex]: sig, [OWNER]: sig } }), ctx),
    "INVALID_REQUEST",
    "duplicate_signer",
  );
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { parent: PARENT, signatures: { "/users/a.text": sig } }), ctx),
    "INVALID_REQUEST",
    "signer_key",
  );
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { parent: PARENT, signatures: { buyer: sig } }), ctx),
    "INVALID_REQUEST",
  );
});

test("limits: operations, signatures and attestations are 413 naming the limit", () => {
  const limits = withLimits({ operationsPerCommit: 2, signaturesPerCommit: 1, attestationsPerCommit: 1 });
  const opts = { contractId: "c1", limits };
  assert.equal(
    assertContractError(() => validateCommitShape(commit([post, post, post]), opts), "PAYLOAD_TOO_LARGE").limit,
    "operationsPerCommit",
  );
  validateCommitShape(commit([post, post]), opts);
  const sig = "ab".repeat(64);
  const twoSigs = { parent: PARENT, signatures: { "/a.id": sig, "/b.id": sig } };
  assert.equal(
    assertContractError(() => validateCommitShape(commit([post], PARENT, twoSigs), opts), "PAYLOAD_TOO_LARGE").limit,
    "signaturesPerCommit",
  );
  const att = { oracle: OWNER, claim: "c", value: 1, signature: sig };
  const twoAtts = { parent: PARENT, signatures: {}, attestations: [att, att] };
  assert.equal(
    assertContractError(() => validateCommitShape(commit([post], PARENT, twoAtts), opts), "PAYLOAD_TOO_LARGE").limit,
    "attestationsPerCommit",
  );
  // Defaults: 64 operations pass, 65 do not.
  validateCommitShape(commit(Array(64).fill(post)), ctx);
  assertContractError(
    () => validateCommitShape(commit(Array(65).fill(post)), ctx),
    "PAYLOAD_TOO_LARGE",
    "limit_exceeded",
  );
});

test("attestations are shape-checked and their oracle normalized", () => {
  const sig = "ab".repeat(64);
  const hex = owner.publicKey.toString("hex");
  const head = (a: unknown) => ({ parent: PARENT, signatures: {}, attestations: [a] });
  const out = validateCommitShape(
    commit([post], PARENT, head({ oracle: hex, claim: "paid", value: { n: 1 }, signature: sig })),
    ctx,
  );
  assert.deepEqual(out.head.attestations, [{ oracle: OWNER, claim: "paid", value: { n: 1 }, signature: sig }]);
  for (const bad of [
    { oracle: hex, claim: "", value: 1, signature: sig },
    { oracle: hex, claim: "x", signature: sig },
    { oracle: hex, claim: "x", value: 1, signature: sig, extra: 1 },
    "x",
  ]) {
    assertContractError(
      () => validateCommitShape(commit([post], PARENT, head(bad)), ctx),
      "INVALID_REQUEST",
      "attestation_shape",
    );
  }
  assertContractError(
    () =>
      validateCommitShape(
        commit([post], PARENT, head({ oracle: "ed25519:00", claim: "x", value: 1, signature: sig })),
        ctx,
      ),
    "INVALID_REQUEST",
    "hex_wrong_length",
  );
  assertContractError(
    () => validateCommitShape(commit([post], PARENT, { parent: PARENT, attestations: {} }), ctx),
    "INVALID_REQUEST",
    "attestations_not_array",
  );
});

test("operation structure", () => {
  const cases: [unknown, string][] = [
    [null, "operation_not_object"],
    [{ method: "POST", path: "/a.text", value: "x" }, "unknown_method"],
    [{ method: "delete", path: "/a.text" }, "unknown_method"],
    [{ method: "post", path: "/a.text", value: "x", extra: 1 }, "unknown_field"],
    [{ method: "post", path: "/a.text", value: "x", action: "X" }, "unknown_field"],
    [{ method: "post", value: "x" }, "path_missing"],
    [{ method: "repost", value: "x" }, "path_missing"],
    [{ method: "post", path: 5, value: "x" }, "path_not_string"],
    [{ method: "post", path: "/a.text" }, "value_missing"],
    [{ method: "rule", path: "/rules/r.modality" }, "value_missing"],
    [{ method: "action", path: "/a.text", value: "X" }, "path_not_allowed"],
    [{ method: "create", path: "/a.text", value: { asset_id: "a", quantity: 1, divisibility: 1 } }, "path_not_allowed"],
    [{ method: "genesis", value: { model: null, rules: [] } }, "identity_not_string"],
    [{ method: "genesis", value: { model: 1, rules: [], owner: OWNER } }, "genesis_value"],
    [{ method: "genesis", value: { model: null, rules: [1], owner: OWNER } }, "genesis_value"],
    [{ method: "genesis", value: { rules: [], owner: OWNER } }, "genesis_value"],
    [{ method: "genesis", value: { model: null, rules: [], owner: OWNER, x: 1 } }, "genesis_value"],
    [{ method: "genesis", value: "x" }, "genesis_value"],
  ];
  for (const [raw, reason] of cases) assertContractError(() => normalizeOperation(raw), "INVALID_REQUEST", reason);
  assertContractError(
    () => normalizeOperation({ method: "post", path: "a.text", value: 1 }),
    "VALIDATION_FAILED",
    "path_syntax",
  );
  assertContractError(() => validateCommitShape({ ...commit([post]), data: [] }, ctx), "INVALID_REQUEST", "data_empty");
  assertContractError(
    () => validateCommitShape({ ...commit([post]), data: {} }, ctx),
    "INVALID_REQUEST",
    "data_not_array",
  );
  assertContractError(() => validateCommitShape("x", ctx), "INVALID_REQUEST", "commit_not_object");
  assertContractError(
    () => validateCommitShape(commit([post]), { contractId: "bad id" }),
    "INVALID_REQUEST",
    "contract_id",
  );
});

test("genesis only opens a contract, and a contract opens only with genesis", () => {
  validateCommitShape(commit([genesisOp, post], null), ctx);
  assertContractError(() => validateCommitShape(commit([post], null), ctx), "VALIDATION_FAILED", "genesis_position");
  assertContractError(() => validateCommitShape(commit([genesisOp]), ctx), "VALIDATION_FAILED", "genesis_position");
  assertContractError(
    () => validateCommitShape(commit([genesisOp, genesisOp], null), ctx),
    "VALIDATION_FAILED",
    "genesis_position",
  );
  const model = { method: "model", value: "model m { a -> a }" };
  assertContractError(() => validateCommitShape(commit([model, model]), ctx), "VALIDATION_FAILED", "multiple_models");
});

test("asset values: malformed is 422 with rpc_code -32602, a non-positive SEND amount -32020", () => {
  const ok: unknown[] = [
    { method: "create", value: { asset_id: "gold.v1", quantity: 1000, divisibility: 10 } },
    { method: "send", value: { asset_id: "gold", to_contract: "c2", amount: 10 } },
    { method: "send", value: { asset_id: "c_issuer/gold", to_contract: "c2", amount: 10 } },
    { method: "recv", value: { send_commit_id: "ab".repeat(32) } },
  ];
  for (const raw of ok) normalizeOperation(raw);
  const malformed: unknown[] = [
    { method: "create", value: { asset_id: "gold", quantity: 0, divisibility: 1 } },
    { method: "create", value: { asset_id: "gold", quantity: 1.5, divisibility: 1 } },
    { method: "create", value: { asset_id: "gold", quantity: 10, divisibility: -1 } },
    { method: "create", value: { asset_id: "gold", quantity: 2 ** 53, divisibility: 1 } },
    { method: "create", value: { asset_id: "go ld", quantity: 1, divisibility: 1 } },
    { method: "create", value: { asset_id: "x".repeat(65), quantity: 1, divisibility: 1 } },
    { method: "create", value: { asset_id: "gold", quantity: 1 } },
    { method: "create", value: { asset_id: "gold", quantity: 1, divisibility: 1, extra: 1 } },
    { method: "create" },
    { method: "send", value: { asset_id: "a/b/c", to_contract: "c2", amount: 1 } },
    { method: "send", value: { asset_id: "gold", to_contract: "c 2", amount: 1 } },
    { method: "send", value: { asset_id: "gold", to_contract: "c2", amount: "5" } },
    { method: "send", value: { asset_id: "gold", to_contract: "c2", amount: 1.5 } },
    { method: "recv", value: { send_commit_id: "AB".repeat(32) } },
    { method: "recv", value: {} },
  ];
  for (const raw of malformed) {
    assert.equal(
      assertContractError(() => normalizeOperation(raw), "VALIDATION_FAILED", "asset_value").rpc_code,
      -32602,
      JSON.stringify(raw),
    );
  }
  for (const amount of [0, -5]) {
    const d = assertContractError(
      () => normalizeOperation({ method: "send", value: { asset_id: "g", to_contract: "c2", amount } }),
      "VALIDATION_FAILED",
      "zero_amount",
    );
    assert.equal(d.rpc_code, -32020);
  }
});

test("path-type violations come after the hash check and name the operation", () => {
  const bad = { method: "post", path: "/flags/ok.bool", value: "true" };
  const d = assertContractError(() => validateCommitShape(commit([post, bad]), ctx), "VALIDATION_FAILED", "value_type");
  assert.deepEqual([d.operation, d.path], [1, "/flags/ok.bool"]);
});

test("values the hash cannot cover are INVALID_REQUEST", () => {
  const c: WireCommit = {
    hash: "00".repeat(32),
    parent: PARENT,
    data: [{ method: "post", path: "/a.json", value: 2 ** 60 }],
    head: { parent: PARENT, signatures: {} },
  };
  assertContractError(() => validateCommitShape(c, ctx), "INVALID_REQUEST", "integer_out_of_range");
});
