/**
 * A custom predicate the host could not finish (the wall-clock backstop fired, or its worker
 * thread died) is false, like any fault, but its outcome comes from the machine, not from the
 * module and input. A decision resting on it would not be the same on the hub, in `verify`
 * and in a working copy, so the engine never accepts a commit on it (a `-name(…)` guard
 * would otherwise pass), and a replay of a stored log never calls the log damaged for it:
 * both are 503 UNAVAILABLE `predicate_unfinished`, and nothing is stored.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { replayLog } from "../src/contract/engine.js";
import { abiModuleWat, compileWat } from "../src/predicates/wasm/compileWat.js";
import { WasmPredicateRunner } from "../src/predicates/wasm/WasmPredicateRunner.js";
import { type ClosableWasmRunner, createWasmRunner } from "../src/predicates/wasmRunner.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { failedProperty } from "./support/engineAsserts.js";
import { Party } from "./support/Party.js";

const MODEL = `model Unfinished {
  initial ready
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> ready [+GO -loop(1)]
  ready -> ready [+SLOW +slow(1)]
  ready -> spun [+SPIN +loop(1)]
  spun -> spun []
}`;

/** Counts to 10^8 (about 10^9 gas, tens of milliseconds or more), then holds. */
const SLOW_WAT = abiModuleWat(
  `(local $i i32)
   (loop $count
     (local.set $i (i32.add (local.get $i) (i32.const 1)))
     (br_if $count (i32.lt_u (local.get $i) (i32.const 100000000))))
   (i32.const 0)`,
  `(data (i32.const 0) "\\0e\\00\\00\\00{\\"valid\\":true}")`,
);

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
/** Gas enough for either module to run into the backstop first. */
const GAS = 1_000_000_000_000;

describe("a custom predicate that did not finish", () => {
  let patient: ClosableWasmRunner;
  let hasty: ClosableWasmRunner;
  let loop: Uint8Array;
  let slow: Uint8Array;
  let okarg: Uint8Array;

  before(async () => {
    patient = createWasmRunner({ gasLimit: GAS, timeoutMs: 60_000, workers: 1 });
    // No machine counts to 10^8 in a millisecond: this runner's backstop always fires.
    hasty = createWasmRunner({ gasLimit: GAS, timeoutMs: 1, workers: 1 });
    loop = await compileWat(readFileSync(new URL("./fixtures/wasm/loop.wat", import.meta.url), "utf8"));
    slow = await compileWat(SLOW_WAT);
    okarg = await compileWat(readFileSync(new URL("./fixtures/wasm/predicate.wat", import.meta.url), "utf8"));
  });
  after(async () => {
    await patient.close();
    await hasty.close();
  });

  async function installed(model = MODEL) {
    const owner = new Party("owner");
    const d = await ContractDriver.create("unfinished", {
      model,
      rules: [],
      owner: owner.identity,
      state: { "/users/owner.id": owner.key },
    });
    await d.commit(
      [
        op.post("/_code/custom/loop.wasm", b64(loop)),
        op.post("/_code/custom/slow.wasm", b64(slow)),
        op.post("/_code/custom/okarg.wasm", b64(okarg)),
        op.action("INSTALL"),
      ],
      [owner],
      { wasm: patient },
    );
    return d;
  }

  it("never lets a forbidding guard pass: the commit is UNAVAILABLE and nothing moves", async () => {
    const d = await installed();
    const head = d.state.head;
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("GO")], [], { wasm: hasty }),
      "UNAVAILABLE",
      "predicate_unfinished",
    );
    assert.equal(details.property, "-loop(1)");
    assert.equal(details.cause, "timeout");
    assert.equal(d.state.head, head);
    assert.equal(d.log.length, 2);
  });

  it("still refuses a commit it needs, naming the cause (nothing is stored by a refusal)", async () => {
    const d = await installed();
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("SPIN")], [], { wasm: hasty }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.match(failedProperty(details, "ready", "spun", "+loop(1)").errors?.[0] ?? "", /^timeout: /);
  });

  it("a replay that meets it reports UNAVAILABLE, never a damaged log", async () => {
    const d = await installed();
    await d.commit([op.action("SLOW")], [], { wasm: patient });
    const state = await replayLog(d.contractId, d.log, { wasm: patient });
    assert.equal(state.head, d.state.head);
    for (const trusted of [false, true]) {
      await assertContractErrorAsync(
        () => replayLog(d.contractId, d.log, { trusted, wasm: hasty }),
        "UNAVAILABLE",
        "predicate_unfinished",
      );
    }
  });

  it("a replay whose predicate budget ran out only because a predicate did not finish reports UNAVAILABLE", async () => {
    // Decided in full, -slow(1) fails at once and one predicate ran; unfinished, it holds and
    // the transition goes on to DECISION_EVALUATIONS more, past the commit's bound.
    const guards = Array.from({ length: 32 }, (_, i) => `-okarg("${i}")`).join(" ");
    const d = await installed(
      MODEL.replace(
        "initial ready",
        `initial ready\n  ready -> ready [+WIDE]\n  ready -> ready [+WIDE -slow(1) ${guards}]`,
      ),
    );
    await d.commit([op.action("WIDE")], [], { wasm: patient });
    await assertContractErrorAsync(
      () => replayLog(d.contractId, d.log, { wasm: hasty }),
      "UNAVAILABLE",
      "predicate_unfinished",
    );
  });

  it("a worker thread that dies mid-evaluation is worker_error, and the pool keeps evaluating", async () => {
    const runner = new WasmPredicateRunner({ workers: 1 });
    try {
      const input = {
        args: [],
        contract_id: "c",
        commit: { hash: "h", parent: null, data: [], labels: [], signers: [], timestamp: 0 },
        state: {},
      };
      const pending = runner.evaluate(loop, input, { gasLimit: GAS, timeoutMs: 60_000 });
      // The thread is private to the pool; reach it to kill it as a crash would.
      const thread = (runner as unknown as { workers: { worker?: { terminate(): Promise<number> } }[] }).workers[0]!;
      while (thread.worker === undefined || !(thread as unknown as { busy: boolean }).busy)
        await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50));
      await thread.worker!.terminate();
      const lost = await pending;
      assert.equal(lost.valid, false);
      assert.equal(lost.cause, "worker_error");
      const next = await runner.evaluate(slow, input, { gasLimit: GAS, timeoutMs: 60_000 });
      assert.equal(next.valid, true);
    } finally {
      await runner.close();
    }
  });
});
