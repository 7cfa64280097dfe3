/**
 * A big custom predicate module is decoded from base64 and hashed once, not at each of its
 * evaluations (docs/predicates-wasm.md; src/contract/customModuleMemo.ts): a decision of four
 * predicates of one module, and the commits after it, decode it once between them, and the
 * runner finds its compilation by the digest the engine hands it instead of hashing the
 * bytes again (for an 11 MB module 10 ms of decoding and 15-25 ms of hashing on the event
 * loop, per evaluation). The real metered runner, wrapped to record what it is given.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, describe, it } from "node:test";
import { customModuleDecodes, decodeCustomModule, forgetCustomModules } from "../src/contract/customModuleMemo.js";
import type { WasmRunner } from "../src/contract/engine.js";
import { WASM_MEMO_MIN_CHARS } from "../src/contract/wasmValueMemo.js";
import { compilePredicate } from "../src/predicates/wasm/compilePredicate.js";
import { compileWat } from "../src/predicates/wasm/compileWat.js";
import { createWasmRunner } from "../src/predicates/wasmRunner.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { manyFunctions } from "./support/manyFunctions.js";
import { Party } from "./support/Party.js";

const MODEL = `model Big {
  initial ready
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> ready [+MANY +big("a") +big("b") +big("c") +big("d")]
  ready -> ready [+SMALL +small("a") +small("b")]
}`;

/** A predicate module of 9,000 functions that always holds: about 100 K characters of base64. */
const BIG = manyFunctions(9_000);
const BIG_B64 = Buffer.from(BIG).toString("base64");
const SMALL = manyFunctions(3);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const runner = createWasmRunner();
after(() => runner.close());

/** The real runner, recording the bytes and digest of each evaluation. */
function recording(): { run: WasmRunner; calls: Array<{ bytes: Uint8Array; digest: string | undefined }> } {
  const calls: Array<{ bytes: Uint8Array; digest: string | undefined }> = [];
  const run: WasmRunner = (bytes, input, digest) => {
    calls.push({ bytes, digest });
    return runner(bytes, input, digest);
  };
  return { run, calls };
}

describe("a big custom predicate module is decoded and hashed once", () => {
  it("four predicates of one module in a decision, and the next commits, decode it once", async () => {
    assert.ok(BIG_B64.length >= WASM_MEMO_MIN_CHARS);
    forgetCustomModules();
    const owner = new Party("owner");
    const d = await ContractDriver.create("bigpred", {
      model: MODEL,
      rules: [],
      owner: owner.identity,
      state: { "/users/owner.id": owner.key },
    });
    const { run, calls } = recording();
    await d.commit(
      [
        op.post("/_code/custom/big.wasm", BIG_B64),
        op.post("/_code/custom/small.wasm", Buffer.from(SMALL).toString("base64")),
        op.action("INSTALL"),
      ],
      [owner],
      { wasm: run },
    );
    const before = customModuleDecodes();
    await d.commit([op.action("MANY")], [], { wasm: run });
    assert.equal(calls.length, 4);
    assert.equal(customModuleDecodes(), before + 1);
    await d.commit([op.action("MANY")], [], { wasm: run });
    await d.commit([op.action("MANY")], [], { wasm: run });
    assert.equal(calls.length, 12);
    assert.equal(customModuleDecodes(), before + 1, "a later evaluation decoded the module again");
    const digest = sha256(BIG);
    for (const call of calls) {
      assert.equal(call.digest, digest);
      assert.deepEqual(Buffer.from(call.bytes), Buffer.from(BIG));
    }
    // Each evaluation gets its own copy: a runner that transfers or changes it harms no other.
    assert.notEqual(calls[0]!.bytes.buffer, calls[1]!.bytes.buffer);
    calls[0]!.bytes.fill(0);
    await d.commit([op.action("MANY")], [], { wasm: run });
    assert.deepEqual(Buffer.from(calls.at(-1)!.bytes), Buffer.from(BIG));

    // A small module is decoded each time (microseconds) and hashed by the runner.
    const small = calls.length;
    await d.commit([op.action("SMALL")], [], { wasm: run });
    assert.equal(calls.length, small + 2);
    assert.deepEqual(
      calls.slice(small).map((c) => c.digest),
      [undefined, undefined],
    );
    assert.equal(customModuleDecodes(), before + 1);
  });

  it("an equal value read again (another string object) is found without decoding it again", () => {
    forgetCustomModules();
    const before = customModuleDecodes();
    const first = decodeCustomModule(BIG_B64);
    const again = decodeCustomModule(JSON.parse(JSON.stringify(BIG_B64)) as string);
    assert.equal(customModuleDecodes(), before + 1);
    assert.equal(again.digest, first.digest);
    // One of the same length that differs only in its last characters is another module.
    const other = Buffer.from(BIG);
    other[other.length - 1] = 0x0c;
    const otherB64 = other.toString("base64");
    assert.equal(otherB64.length, BIG_B64.length);
    assert.equal(decodeCustomModule(otherB64).digest, sha256(other));
    assert.equal(customModuleDecodes(), before + 2);
  });

  it("the runner finds a compilation by the digest it is given, without hashing the bytes", async () => {
    const okarg = await compileWat(`(module (memory (export "memory") 1)
      (func (export "alloc") (param i32) (result i32) (i32.const 1024))
      (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`);
    const digest = sha256(okarg);
    const compiled = await compilePredicate(okarg, 16, digest);
    assert.equal(compiled.ok, true);
    // Bytes that are not a module, under that digest: the cached compilation answers.
    assert.equal(await compilePredicate(Uint8Array.from([1, 2, 3]), 16, digest), compiled);
    assert.equal((await compilePredicate(Uint8Array.from([1, 2, 3]), 16)).ok, false);
  });
});
