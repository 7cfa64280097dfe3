/**
 * Hostile load, explaining a refusal (docs/engine.md, "Explaining a refusal";
 * docs/security.md, "Hostile load"): when no transition takes a commit, the engine evaluates
 * the predicates of every candidate transition to say why. Custom predicates run WASM, and
 * that work is not charged to the caller's work budget, so a model with hundreds of guarded
 * transitions made one refused commit run hundreds of modules for free. The explanation now
 * runs at most EXPLANATION_EVALUATIONS custom predicates beyond those the decision itself
 * ran; past that the refusal says it was cut short. Counted in evaluations, never in time.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { assertContractErrorAsync } from "../../src/contract/assertContractError.js";
import type { PredicateResult, WasmRunner } from "../../src/contract/EngineContext.js";
import { EXPLANATION_EVALUATIONS, TRANSITIONS_PER_TICK } from "../../src/contract/step.js";
import { HeavyWork, workKey } from "../../src/hub/heavy/HeavyWork.js";
import { Actor, cleanup, openHub } from "../hub-fixtures.js";
import { candidatesOf } from "../support/engineAsserts.js";

/** `[+GO +p("i")]` from `s` for i < n: a commit without GO is stopped by the label, before any module runs. */
function guardedModel(n: number): string {
  const lines = ["model Guarded {", "  initial s"];
  for (let i = 0; i < n; i++) lines.push(`  s -> t${i} [+GO +p("${i}")]`);
  lines.push("}");
  return lines.join("\n");
}

/** A runner that counts its evaluations and answers `valid: false` with some gas. */
function counting(): { run: WasmRunner; calls: number } {
  const counter = {
    calls: 0,
    run: async (): Promise<PredicateResult> => {
      counter.calls++;
      return { valid: false, gas_used: 1_000, errors: ["no"] };
    },
  };
  return counter;
}

async function refusedCommit(transitions: number) {
  const wasm = counting();
  const work = new HeavyWork({ workBudgetMs: 5_000, now: () => 1_000_000 });
  const hub = await openHub(undefined, { wasm: wasm.run, work });
  try {
    const owner = new Actor("owner");
    const { contract_id: id } = await hub.createContract(owner.caller, {
      model: guardedModel(transitions),
      rules: [],
      // The empty module (it validates; the counting runner never runs it).
      state: { "/_code/custom/p.wasm": Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]).toString("base64") },
    });
    const atGenesis = wasm.calls;
    const left = work.budget.remaining(workKey(owner.caller));
    const details = await assertContractErrorAsync(
      () => hub.submitCommit(owner.caller, id, { method: "post", path: "/note.text", value: "no label" }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    return {
      details,
      evaluations: wasm.calls - atGenesis,
      charged: left - work.budget.remaining(workKey(owner.caller)),
    };
  } finally {
    await hub.close();
  }
}

describe("hostile load: explaining a refused commit", () => {
  after(cleanup);

  it("runs at most EXPLANATION_EVALUATIONS custom predicates and says the explanation was cut short", async () => {
    // The decision and then the explanation each judge every transition, and together they
    // stay under one slice (TRANSITIONS_PER_TICK), so nothing ticks: a wide model's slices are
    // charged (test/work-budget-replays.test.ts), and a charge seen here would be the
    // explanation's own. Still well past the cap.
    const transitions = Math.floor((TRANSITIONS_PER_TICK - 1) / 2);
    assert.ok(transitions > EXPLANATION_EVALUATIONS);
    const { details, evaluations, charged } = await refusedCommit(transitions);
    // The explanation's predicate work is not charged to the work budget (its bound is the cap).
    assert.equal(charged, 0);
    assert.ok(
      evaluations <= EXPLANATION_EVALUATIONS,
      `the explanation ran ${evaluations} custom predicates for one refused commit (cap ${EXPLANATION_EVALUATIONS})`,
    );
    assert.equal(evaluations, EXPLANATION_EVALUATIONS);
    assert.equal(details.explanation_cut_short, true);
    // Every candidate is still listed; the predicates past the cap are named, not run.
    const candidates = candidatesOf(details);
    assert.equal(candidates.length, transitions);
    const custom = candidates.flatMap((c) => c.failed.filter((f) => f.property.startsWith("+p(")).map((f) => f.kind));
    assert.equal(custom.length, transitions);
    assert.equal(custom.filter((k) => k === "missing").length, EXPLANATION_EVALUATIONS);
    assert.equal(custom.filter((k) => k === "not_evaluated").length, transitions - EXPLANATION_EVALUATIONS);
  });

  it("an ordinary refusal is explained in full, with no cut-short mark", async () => {
    const { details, evaluations } = await refusedCommit(3);
    assert.equal(evaluations, 3);
    assert.equal("explanation_cut_short" in details, false);
    for (const c of candidatesOf(details)) {
      assert.deepEqual(
        c.failed.map((f) => f.kind),
        ["missing", "missing"],
      );
    }
  });
});
