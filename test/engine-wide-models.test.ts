/**
 * Hostile load, deciding one commit on a wide model (docs/security.md, "Hostile load"): a
 * model may leave one state by thousands of transitions, each guarded by another built-in
 * predicate (another `hash_matches` path, another `post_to` value, another directory). The
 * engine judges every transition leaving the current states, so one commit on such a model
 * held the event loop for as long as all of them took: 2,000 `hash_matches` transitions and
 * one 900 KB value hashed that value 2,000 times in one go (about two seconds on the
 * reference machine; the text limit allows tens of thousands). Now the decision yields to
 * the caller's tick between groups of transitions, and a commit's operation values are
 * hashed and canonicalized once, however many predicates ask. Counted in ticks, never in time.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { proposalMissing } from "../src/contract/decideProposal.js";
import type { WasmRunner } from "../src/contract/EngineContext.js";
import { stateView, validActions } from "../src/contract/stateView.js";
import { DECISION_EVALUATIONS, TRANSITIONS_PER_TICK } from "../src/contract/step.js";
import { createWasmRunner } from "../src/predicates/wasmRunner.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { Party } from "./support/Party.js";
import { base64, predicateModules } from "./support/wasmModules.js";

/** `s -> t` by `GO`, then `n` transitions `t -> t` each guarded by `guard(i)` (and `t -> t []` when `open`). */
function wideModel(n: number, guard: (i: number) => string, open: boolean): string {
  const lines = ["model Wide {", "  initial s", "  s -> t [+GO]", ...(open ? ["  t -> t []"] : [])];
  for (let i = 0; i < n; i++) lines.push(`  t -> t [${guard(i)}]`);
  lines.push("}");
  return lines.join("\n");
}

async function wideContract(n: number, guard: (i: number) => string, open = true) {
  const owner = new Party("owner");
  const model = wideModel(n, guard, open);
  const d = await ContractDriver.create("wide", { model, rules: [], owner: owner.identity });
  await d.commit([op.action("GO")]);
  return d;
}

/** A tick that counts its calls and yields like the hub's. */
function countingTick() {
  const counter = {
    calls: 0,
    tick: async () => {
      counter.calls++;
      await new Promise((r) => setImmediate(r));
    },
  };
  return counter;
}

describe("hostile load: one commit on a model with thousands of guarded transitions", () => {
  it("the decision yields to the caller's tick between groups of transitions", async () => {
    const n = 2_000;
    const d = await wideContract(n, (i) => `+post_to(/x.text, "${i}")`);
    const ticks = countingTick();
    const stored = await d.commit([op.post("/x.text", "1234")], [], { tick: ticks.tick });
    assert.equal(stored.index, 2);
    assert.deepEqual(d.state.currentStateNames, ["t"]);
    assert.ok(
      ticks.calls >= Math.floor(n / TRANSITIONS_PER_TICK),
      `one decision over ${n} transitions ticked ${ticks.calls} times`,
    );
  });

  it("a refusal on a wide model yields too, and still names every candidate", async () => {
    const n = 1_000;
    const d = await wideContract(n, (i) => `+GO2 +post_to(/x.text, "${i}")`, false);
    const ticks = countingTick();
    await assert.rejects(
      () => d.commit([op.action("STOP")], [], { tick: ticks.tick }),
      (err: { code?: string; details?: { reason?: string; candidates?: unknown[] } }) =>
        err.code === "VALIDATION_FAILED" &&
        err.details?.reason === "no_transition" &&
        err.details.candidates?.length === n,
    );
    assert.ok(ticks.calls >= Math.floor((2 * n) / TRANSITIONS_PER_TICK), `ticked ${ticks.calls} times`);
  });

  it("hash_matches, post_to and oracle_attests still decide as before when many ask about one value", async () => {
    const n = 300;
    const owner = new Party("owner");
    const value = "v".repeat(10_000);
    const { createHash } = await import("node:crypto");
    const digest = createHash("sha256").update(value, "utf8").digest("hex");
    const state: Record<string, unknown> = { "/h/match.text": digest.toUpperCase() };
    for (let i = 0; i < 60; i++) state[`/h/x${i}.text`] = "0".repeat(64);
    const lines = ["model Hashes {", "  initial s", "  s -> s [+GO]"];
    for (let i = 0; i < 60; i++) lines.push(`  s -> miss${i} [+hash_matches(/h/x${i}.text)]`);
    for (let i = 0; i < n; i++) lines.push(`  s -> post${i} [+post_to(/v.json, "{\\"k\\":${i}}")]`);
    lines.push("  s -> hit [+hash_matches(/h/match.text)]", "}");
    const d = await ContractDriver.create("hashes", {
      model: lines.join("\n"),
      rules: [],
      owner: owner.identity,
      state,
    });
    await d.commit([op.post("/big.text", value), op.post("/v.json", { k: 7 })]);
    assert.deepEqual([...d.state.currentStateNames].sort(), ["hit", "post7"]);
  });

  it("the valid actions of a wide model are listed once per head, not once per read", async () => {
    // GET /contracts/:id/state, every commit's answer and every subscriber's event carry the
    // state view: listing 30,000 valid actions again for each held the event loop ~50-80 ms
    // per anonymous read.
    const n = 2_000;
    const d = await wideContract(n, (i) => `+post_to(/x.text, "${i}")`);
    const first = validActions(d.state);
    assert.equal(first.length, n + 1);
    assert.equal(first[1]!.label, "+post_to(/x.text, 0)");
    assert.equal(validActions(d.state), first, "the same head and model: the list already made");
    assert.equal(stateView(d.state).valid_actions, first);
    await d.commit([op.post("/x.text", "7")]);
    const next = validActions(d.state);
    assert.notEqual(next, first, "a new head: listed again");
    assert.deepEqual(next, first);
  });

  it("a decision runs at most DECISION_EVALUATIONS custom predicates: past them the commit is refused, predicate_budget", async () => {
    // Each custom predicate may burn 10^7 gas (about 60 ms of a worker); a model leaving one
    // state by 20 transitions each with another custom predicate made one commit cost over
    // a second of the predicate threads, and a 1 MiB model holds ~50,000 such transitions.
    const real = createWasmRunner({ workers: 1 });
    let runs = 0;
    const counting: WasmRunner = (bytes, input) => {
      runs++;
      return real(bytes, input);
    };
    try {
      const owner = new Party("owner");
      const { okarg } = await predicateModules();
      const n = DECISION_EVALUATIONS + 8;
      const lines = ["model Custom {", "  initial s", "  s -> t [+GO]", "  t -> t []"];
      for (let i = 0; i < n; i++) lines.push(`  t -> t [+okarg("no${i}")]`);
      lines.push("}");
      const d = await ContractDriver.create(
        "custom",
        {
          model: lines.join("\n"),
          rules: [],
          owner: owner.identity,
          state: { "/_code/custom/okarg.wasm": base64(okarg) },
        },
        { wasm: counting },
      );
      await d.commit([op.action("GO")], [], { wasm: counting });
      runs = 0;
      await assert.rejects(
        () => d.commit([op.post("/x.text", "1")], [], { wasm: counting }),
        (err: { code?: string; details?: { reason?: string; limit?: number } }) =>
          err.code === "VALIDATION_FAILED" &&
          err.details?.reason === "predicate_budget" &&
          err.details.limit === DECISION_EVALUATIONS,
      );
      assert.equal(runs, DECISION_EVALUATIONS);
      assert.equal(d.state.length, 2, "nothing appended");

      // Within the bound the same model decides as before: the same predicate asked twice runs once.
      const few = [
        "model Few {",
        "  initial s",
        '  s -> ok [+okarg("ok")]',
        '  s -> ok2 [+okarg("ok")]',
        '  s -> no [+okarg("no")]',
        "}",
      ];
      const e = await ContractDriver.create(
        "few",
        {
          model: few.join("\n"),
          rules: [],
          owner: owner.identity,
          state: { "/_code/custom/okarg.wasm": base64(okarg) },
        },
        { wasm: counting },
      );
      runs = 0;
      await e.commit([op.post("/x.text", "1")], [], { wasm: counting });
      assert.deepEqual([...e.state.currentStateNames].sort(), ["ok", "ok2"]);
      assert.equal(runs, 2);
    } finally {
      await real.close();
    }
  });

  it("a proposal's missing signatures on a wide model are judged in slices too", async () => {
    // Every read of a proposal recomputes `missing` over the transitions leaving the state.
    const n = 1_000;
    const owner = new Party("owner");
    const lines = ["model Sign {", "  initial s", "  s -> s [+signed_by(/users/owner.id)]"];
    for (let i = 0; i < n; i++) lines.push(`  s -> s [+post_to(/x.text, "${i}")]`);
    lines.push("}");
    const d = await ContractDriver.create("sign", {
      model: lines.join("\n"),
      rules: [],
      owner: owner.identity,
      state: { "/users/owner.id": owner.key },
    });
    const ticks = countingTick();
    const missing = await proposalMissing(d.state, d.build([op.post("/y.text", "y")]), [], {
      timestamp: d.clock,
      tick: ticks.tick,
    });
    assert.deepEqual(missing, [{ predicate: "+signed_by(/users/owner.id)", signers: ["/users/owner.id"], needed: 1 }]);
    assert.ok(ticks.calls >= Math.floor(n / TRANSITIONS_PER_TICK), `ticked ${ticks.calls} times`);
  });
});
