/**
 * Custom WASM predicates end to end (LANGUAGE.md §6): a module posted at
 * /_code/custom/<name>.wasm under +modifies(/_code), referenced as +<name>(args) on a
 * transition, evaluated by the metered runner through src/predicates/wasmRunner.ts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { PredicateResult, WasmRunner } from "../src/contract/engine.js";
import { replayLog } from "../src/contract/engine.js";
import { abiModuleWat, compileWat } from "../src/predicates/wasm/compileWat.js";
import { WasmPredicateRunner } from "../src/predicates/wasm/WasmPredicateRunner.js";
import { type ClosableWasmRunner, createWasmRunner, sortKeysDeep } from "../src/predicates/wasmRunner.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { failedProperty } from "./support/engineAsserts.js";
import { Party } from "./support/Party.js";

const MODEL = `model Custom {
  initial setup
  setup -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> used [+USE +okarg("ok")]
  ready -> refused [+DENY +okarg("no")]
  ready -> spun [+SPIN +spin(1)]
  ready -> missing [+ABSENT +nomod(1)]
  ready -> opened [+OPEN -okarg("ok")]
  used -> used [+USE +okarg("ok")]
  refused -> refused []
  spun -> spun []
  missing -> missing []
  opened -> opened []
}`;

/** Scans its input for the bytes NEEDLE (so gas depends on where they are), then holds. */
const SCAN_WAT = abiModuleWat(
  `(local $i i32)
   (block $done
     (loop $scan
       (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
       (br_if $done (i32.eq (i32.load (i32.add (local.get $ptr) (local.get $i))) (i32.const 0x4c444545)))
       (local.set $i (i32.add (local.get $i) (i32.const 1)))
       (br $scan)))
   (i32.const 0)`,
  `(data (i32.const 0) "\\0e\\00\\00\\00{\\"valid\\":true}")`,
);

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** Wraps a runner to record each evaluation's gas by (commit hash, args). */
function recording(inner: WasmRunner): { run: WasmRunner; gas: Map<string, number> } {
  const gas = new Map<string, number>();
  const run: WasmRunner = async (bytes, input) => {
    const result: PredicateResult = await inner(bytes, input);
    const i = input as { args: unknown[]; commit: { hash: string } };
    gas.set(`${i.commit.hash} ${JSON.stringify(i.args)}`, result.gas_used);
    return result;
  };
  return { run, gas };
}

describe("custom WASM predicates through the engine", () => {
  let runner: ClosableWasmRunner;
  let okarg: Uint8Array;
  let spin: Uint8Array;

  before(async () => {
    runner = createWasmRunner({ gasLimit: 200_000 });
    okarg = await compileWat(readFileSync(new URL("./fixtures/wasm/predicate.wat", import.meta.url), "utf8"));
    spin = await compileWat(readFileSync(new URL("./fixtures/wasm/loop.wat", import.meta.url), "utf8"));
  });
  after(() => runner.close());

  async function installed(wasm: WasmRunner | null) {
    const owner = new Party("owner");
    const d = await ContractDriver.create("wasm1", {
      model: MODEL,
      rules: [],
      owner: owner.identity,
      state: { "/users/owner.id": owner.key },
    });
    await d.commit(
      [
        op.post("/_code/custom/okarg.wasm", b64(okarg)),
        op.post("/_code/custom/spin.wasm", b64(spin)),
        op.action("INSTALL"),
      ],
      [owner],
      { wasm },
    );
    return { d, owner };
  }

  it("takes a transition whose custom predicate holds", async () => {
    const { d } = await installed(runner);
    await d.commit([op.action("USE")], [], { wasm: runner });
    assert.equal(d.state.currentStateName, "used");
  });

  it("refuses a transition whose module returns valid: false, with the module's errors", async () => {
    const { d } = await installed(runner);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("DENY")], [], { wasm: runner }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const failed = failedProperty(details, "ready", "refused", '+okarg("no")');
    assert.equal(failed.kind, "missing");
    assert.deepEqual(failed.errors, ["arg is not ok"]);
  });

  it("a module that runs out of gas leaves the transition disabled and says so", async () => {
    const { d } = await installed(runner);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("SPIN")], [], { wasm: runner }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const failed = failedProperty(details, "ready", "spun", "+spin(1)");
    assert.match(failed.errors?.[0] ?? "", /^out_of_gas: /);
  });

  it("a missing module makes the predicate false with the reason, with or without a runner", async () => {
    const { d } = await installed(runner);
    for (const wasm of [runner, null]) {
      const details = await assertContractErrorAsync(
        () => d.commit([op.action("ABSENT")], [], { wasm }),
        "VALIDATION_FAILED",
        "no_transition",
      );
      assert.deepEqual(failedProperty(details, "ready", "missing", "+nomod(1)").errors, [
        "no predicate module at /_code/custom/nomod.wasm",
      ]);
    }
  });

  it("without a runner, a commit whose decision needs a custom predicate is UNAVAILABLE wasm_disabled, never a guess", async () => {
    const { d } = await installed(null);
    // With a runner the forbidden predicate holds, so the commit is refused.
    const refused = await assertContractErrorAsync(
      () => d.commit([op.action("OPEN")], [], { wasm: runner }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(failedProperty(refused, "ready", "opened", '-okarg("ok")').kind, "forbidden");
    // Without one it is neither false (the -guard would pass) nor true: the engine does not decide.
    for (const extra of [{ wasm: null }, {}]) {
      for (const [action, property] of [
        ["OPEN", '-okarg("ok")'],
        ["USE", '+okarg("ok")'],
      ] as const) {
        const details = await assertContractErrorAsync(
          () => d.commit([op.action(action)], [], extra),
          "UNAVAILABLE",
          "wasm_disabled",
        );
        assert.equal(details.property, property);
      }
    }
    assert.equal(d.state.currentStateName, "ready");
    assert.equal(d.log.length, 2);
  });

  it("a commit decided without a custom predicate needs no runner", async () => {
    const { d, owner } = await installed(null);
    await d.commit([op.post("/_code/custom/other.wasm", b64(okarg)), op.action("INSTALL")], [owner], { wasm: null });
    assert.equal(d.state.currentStateName, "ready");
    assert.equal(d.log.length, 3);
  });

  it("explains a refusal without a runner: custom predicates are not_evaluated, not false", async () => {
    const { d } = await installed(null);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("NOPE")], [], { wasm: null }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(details.wasm_disabled, true);
    assert.equal("explanation_cut_short" in details, false);
    for (const [to, property] of [
      ["used", '+okarg("ok")'],
      ["refused", '+okarg("no")'],
      ["spun", "+spin(1)"],
      ["opened", '-okarg("ok")'],
    ] as const) {
      const failed = failedProperty(details, "ready", to, property);
      assert.equal(failed.kind, "not_evaluated", property);
      assert.equal("gas_used" in failed, false);
    }
    // A missing module needs no runner to be false.
    assert.equal(failedProperty(details, "ready", "missing", "+nomod(1)").kind, "missing");
    // With a runner the same refusal is explained in full, without the mark.
    const full = await assertContractErrorAsync(
      () => d.commit([op.action("NOPE")], [], { wasm: runner }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal("wasm_disabled" in full, false);
    assert.equal(failedProperty(full, "ready", "refused", '+okarg("no")').kind, "missing");
    assert.equal(failedProperty(full, "ready", "opened", '-okarg("ok")').kind, "forbidden");
  });

  it("replays a log whose commits needed a custom predicate only with a runner (UNAVAILABLE, not CORRUPTED)", async () => {
    const { d } = await installed(runner);
    await d.commit([op.action("USE")], [], { wasm: runner });
    const details = await assertContractErrorAsync(
      () => replayLog(d.contractId, d.log, { wasm: null }),
      "UNAVAILABLE",
      "wasm_disabled",
    );
    assert.equal(details.property, '+okarg("ok")');
    assert.equal((await replayLog(d.contractId, d.log, { wasm: runner })).currentStateName, "used");
  });

  it("posting a module needs +modifies(/_code) on the transition taken", async () => {
    const owner = new Party("owner");
    const d = await ContractDriver.create("wasm2", {
      model: MODEL.replace("setup -> ready [+INSTALL +modifies(/_code)", "setup -> ready [+INSTALL"),
      rules: [],
      owner: owner.identity,
      state: { "/users/owner.id": owner.key },
    });
    const details = await assertContractErrorAsync(
      () => d.commit([op.post("/_code/custom/okarg.wasm", b64(okarg)), op.action("INSTALL")], [owner]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(
      failedProperty(details, "setup", "ready", "+modifies(/_code/custom/okarg.wasm)").kind,
      "needs_modifies",
    );
  });

  it("replay meters exactly the same gas as the incremental run", async () => {
    const live = recording(runner);
    const { d } = await installed(live.run);
    await d.commit([op.post("/notes/a.text", "one"), op.action("USE")], [], { wasm: live.run });
    await d.commit([op.post("/notes/b.json", { z: 1, a: [2, { y: 3, b: 4 }] }), op.action("USE")], [], {
      wasm: live.run,
    });
    await d.commit([op.action("USE")], [], { wasm: live.run });
    const replayed = recording(runner);
    const state = await replayLog(d.contractId, d.log, { wasm: replayed.run });
    assert.equal(state.head, d.state.head);
    assert.equal(state.currentStateName, "used");
    assert.equal(replayed.gas.size, 3);
    for (const [key, gas] of replayed.gas) {
      assert.ok(gas > 0);
      assert.equal(gas, live.gas.get(key), key);
    }
  });

  it("passes the input in canonical key order, so key order never changes gas", async () => {
    const scan = await compileWat(SCAN_WAT);
    const input = (state: Record<string, unknown>) => ({
      args: [],
      contract_id: "c",
      commit: { hash: "h", parent: null, data: [], labels: [], signers: [], timestamp: 0 },
      state,
    });
    const forward = input({ "/a.text": "x".repeat(100), "/b.text": "NEEDLE" });
    const backward = input({ "/b.text": "NEEDLE", "/a.text": "x".repeat(100) });
    const viaAdapter = [await runner(scan, forward), await runner(scan, backward)];
    assert.equal(viaAdapter[0]!.valid, true);
    assert.equal(viaAdapter[0]!.gas_used, viaAdapter[1]!.gas_used);
    // The raw runner keeps insertion order, so the same facts would cost different gas.
    const raw = new WasmPredicateRunner();
    try {
      const direct = [await raw.evaluate(scan, forward), await raw.evaluate(scan, backward)];
      assert.notEqual(direct[0]!.gas_used, direct[1]!.gas_used);
    } finally {
      await raw.close();
    }
    assert.deepEqual(Object.keys(sortKeysDeep({ b: 1, a: { d: 1, c: 2 } }) as object), ["a", "b"]);
  });
});
