import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import fc from "fast-check";
import { assertContractError } from "./assertContractError.js";
import type { Operation } from "./Commit.js";
import { canonicalize } from "./canonicalJson.js";
import {
  commitCanonicalText,
  commitPayload,
  computeCommitHash,
  signCommit,
  verifyCommitSignature,
} from "./commitHash.js";
import { generateKeyPair } from "./keys.js";

const data: Operation[] = [
  { method: "post", path: "/users/buyer.id", value: "ab".repeat(32) },
  { method: "action", value: "DEPOSIT" },
];

test("the hashed text is JCS of {contract_id, parent, data}", () => {
  assert.equal(
    commitCanonicalText("c1", null, data),
    `{"contract_id":"c1","data":[{"method":"post","path":"/users/buyer.id","value":"${"ab".repeat(32)}"},{"method":"action","value":"DEPOSIT"}],"parent":null}`,
  );
  assert.equal(
    computeCommitHash("c1", null, data),
    createHash("sha256")
      .update(commitCanonicalText("c1", null, data))
      .digest("hex"),
  );
  assert.match(computeCommitHash("c1", null, data), /^[0-9a-f]{64}$/);
});

test("absent fields are dropped, never hashed as undefined or null", () => {
  const op = { method: "action", path: undefined, value: "X" } as unknown as Operation;
  assert.deepEqual(commitPayload("c", null, [op]).data, [{ method: "action", value: "X" }]);
  assert.equal(computeCommitHash("c", null, [op]), computeCommitHash("c", null, [{ method: "action", value: "X" }]));
});

test("contract id, parent, operation order and values all change the hash", () => {
  const base = computeCommitHash("c1", null, data);
  const parent = "00".repeat(32);
  const variants = [
    computeCommitHash("c2", null, data),
    computeCommitHash("c1", parent, data),
    computeCommitHash("c1", null, [...data].reverse()),
    computeCommitHash("c1", null, [data[0]!, { method: "action", value: "DEPOSIT2" }]),
  ];
  assert.equal(new Set([base, ...variants]).size, 5);
});

test("signCommit signs the 32 raw hash bytes; verification is strict", async () => {
  const { seed, publicKey } = generateKeyPair();
  const hash = computeCommitHash("c1", null, data);
  const sig = signCommit(hash, seed);
  assert.match(sig, /^[0-9a-f]{128}$/);
  assert.equal(verifyCommitSignature(hash, publicKey, sig), true);
  const other = computeCommitHash("c1", "11".repeat(32), data);
  assert.equal(verifyCommitSignature(other, publicKey, sig), false);
  assert.equal(verifyCommitSignature(hash, generateKeyPair().publicKey, sig), false);
  assertContractError(
    () => verifyCommitSignature(hash.toUpperCase(), publicKey, sig),
    "INVALID_REQUEST",
    "hex_upper_case",
  );
  assertContractError(
    () => verifyCommitSignature(hash, publicKey, sig.slice(2)),
    "INVALID_REQUEST",
    "hex_wrong_length",
  );
  assertContractError(() => verifyCommitSignature(hash, publicKey, "zz"), "INVALID_REQUEST");
});

/** The text a function returns, or the code and details of what it throws. */
function outcome(f: () => string): unknown {
  try {
    return { text: f() };
  } catch (err) {
    const e = err as { code?: string; details?: unknown };
    return { code: e.code, details: e.details };
  }
}

test("the directly written commit text is the JCS text of the payload (or the same refusal), for any operations", () => {
  const op = fc.record(
    {
      method: fc.constantFrom("post", "action", "genesis", "send", "rule", "a\u2028b", "é"),
      path: fc.string(),
      value: fc.jsonValue({ maxDepth: 4 }),
    },
    { requiredKeys: ["method"] },
  );
  fc.assert(
    fc.property(
      fc.string(),
      fc.option(fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 })),
      fc.array(op),
      (id, parent, ops) => {
        const data = ops as Operation[];
        assert.deepEqual(
          outcome(() => commitCanonicalText(id, parent, data)),
          outcome(() => canonicalize(commitPayload(id, parent, data))),
        );
      },
    ),
    { numRuns: 500 },
  );
});

test("a value the JCS walk refuses is refused with the pointer into the whole payload", () => {
  const deep = JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`);
  assertContractError(
    () => commitCanonicalText("c_x", null, [{ method: "post", path: "/a.json", value: deep }]),
    "INVALID_REQUEST",
    "json_too_deep",
  );
  assert.throws(
    () => commitCanonicalText("c_x", null, [{ method: "post", path: "/a.text", value: "\ud800" }]),
    (err: { details?: { pointer?: string } }) => err.details?.pointer === "/data/0/value",
  );
});
