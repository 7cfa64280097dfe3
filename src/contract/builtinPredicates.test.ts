import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { evaluateBuiltin, type PredicateInput } from "./builtinPredicates.js";
import { canonicalize } from "./canonicalJson.js";

const a = "aa".repeat(32);
const b = "bb".repeat(32);
const input = (signers: string[]): PredicateInput => ({
  data: new Map<string, unknown>([
    ["/signers/one.id", a],
    ["/signers/two.id", b],
  ]),
  ops: [],
  signers: new Set(signers),
  attestations: [],
  timestamp: 0,
});

test("threshold counts decimal digits only: an empty, hex or exponent count never passes", () => {
  assert.equal(evaluateBuiltin("threshold", ["2", "/signers"], input([a, b]))?.valid, true);
  assert.equal(evaluateBuiltin("threshold", ["2", "/signers"], input([a]))?.valid, false);
  assert.equal(evaluateBuiltin("threshold", ["0", "/signers"], input([]))?.valid, true);
  // Number() read "" as 0 (no signature needed), "0x2" as 2 and " 1" as 1.
  for (const count of ["", " ", "0x2", "1e1", " 1", "-1", "1.0"]) {
    const r = evaluateBuiltin("threshold", [count, "/signers"], input([a, b]));
    assert.equal(r?.valid, false, JSON.stringify(count));
  }
});

/** What oracle_attests and post_to compared before: the value's whole text, written in one piece. */
const onePieceText = (value: unknown) => (typeof value === "string" ? value : canonicalize(value));

/** JSON values canonicalize accepts, as a commit holds them, and texts near their own. */
const valueAndTexts = fc
  .jsonValue({ maxDepth: 3, stringUnit: fc.constantFrom("a", "é", "🙂", '"', "\\", "\n", "1", "{") })
  .filter((v) => {
    try {
      canonicalize(v);
      return true;
    } catch {
      return false;
    }
  })
  .chain((value) => {
    const own = onePieceText(value);
    return fc.tuple(
      fc.constant(value),
      fc.array(
        fc.oneof(
          fc.constant(own),
          fc.constant(JSON.stringify(value)),
          fc.nat(own.length).map((n) => own.slice(0, n)),
          fc.string().map((s) => own + s),
          fc.string(),
          fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
        ),
        { minLength: 1, maxLength: 6 },
      ),
    );
  });

test("property: oracle_attests and post_to decide as the one-piece text comparison did", () => {
  const oracle = "cc".repeat(32);
  const data = new Map<string, unknown>([["/oracle.id", oracle]]);
  fc.assert(
    fc.property(valueAndTexts, ([value, texts]) => {
      // One attestation and one operation across all texts (the per-commit memos), and fresh ones per text.
      const shared = { oracle: `ed25519:${oracle}`, claim: "c", value, signature: "" };
      const sharedOp = { method: "post" as const, path: "/v.json", value };
      for (const text of texts) {
        const expected = onePieceText(value) === text;
        for (const a of [shared, { ...shared }]) {
          const inputA: PredicateInput = { data, ops: [], signers: new Set(), attestations: [a], timestamp: 0 };
          assert.equal(evaluateBuiltin("oracle_attests", ["/oracle.id", "c", text], inputA)?.valid, expected);
        }
        for (const op of [sharedOp, { ...sharedOp }]) {
          const inputP: PredicateInput = { data, ops: [op], signers: new Set(), attestations: [], timestamp: 0 };
          assert.equal(evaluateBuiltin("post_to", ["/v.json", text], inputP)?.valid, expected);
        }
      }
    }),
    { numRuns: 1_000 },
  );
});

test("oracle_attests and post_to refuse a big value without reading past the rule's text", () => {
  const oracle = "cc".repeat(32);
  const data = new Map<string, unknown>([["/oracle.id", oracle]]);
  // Members past the first few throw when read: a comparison in one piece reads them all.
  const value: Record<string, unknown> = { a: 1 };
  for (let i = 0; i < 1_000; i++)
    Object.defineProperty(value, `m${i}`, {
      enumerable: true,
      get() {
        throw new Error("read past the rule's text");
      },
    });
  const attestation = { oracle: `ed25519:${oracle}`, claim: "c", value, signature: "" };
  const op = { method: "post" as const, path: "/v.json", value };
  const input: PredicateInput = { data, ops: [op], signers: new Set(), attestations: [attestation], timestamp: 0 };
  assert.equal(evaluateBuiltin("oracle_attests", ["/oracle.id", "c", '{"a":1}'], input)?.valid, false);
  assert.equal(evaluateBuiltin("post_to", ["/v.json", "true"], input)?.valid, false);
});
