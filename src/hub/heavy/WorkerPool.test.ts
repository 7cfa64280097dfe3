import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { ContractError } from "../../contract/ContractError.js";
import { compileGoverningModel, parseRuleRecord } from "../../contract/compileGoverningModel.js";
import { HeavyWork } from "./HeavyWork.js";
import { WorkerPool, workMsOf } from "./WorkerPool.js";

const pool = new WorkerPool(undefined, 2);
after(() => pool.close());

const CYCLE = `model Cycle {
  initial s0
  s0 -> s1 [+A]
  s1 -> s2 [+A]
  s2 -> s0 [+A]
}`;

test("a worker runs model checks and answers their errors as ContractErrors with their details", async () => {
  const ok = await pool.run<{ visits: number }>("checkRules", {
    model: CYCLE,
    rules: [{ text: "<+A>s1", path: null, anchorIndex: 0, anchors: [0] }],
    budget: 1_000,
    total: 1_000,
  });
  assert.ok(ok.result.visits > 0 && ok.ms >= 0);
  await assert.rejects(
    pool.run("checkRules", {
      model: CYCLE,
      rules: [{ text: "<+A>s2", path: "/rules/r", anchorIndex: 0, anchors: [0] }],
      budget: 1_000,
      total: 1_000,
    }),
    (e: ContractError) => e.code === "VALIDATION_FAILED" && e.details?.reason === "rule_violated" && workMsOf(e) >= 0,
  );
  await assert.rejects(pool.run("noSuchTask", {}), /unknown worker task/);
});

test("the checks of one request share one budget, on the pool past the inline attempt", async () => {
  const work = new HeavyWork({ pool, inlineVisits: 0, workBudgetMs: 0 });
  const model = compileGoverningModel(CYCLE);
  const rules = ["[+A]s1", "[+A][+A]s2", "<+A><+A><+A>s0"].map((t, i) => parseRuleRecord(t, `/rules/r${i}`, 0));
  const checks = rules.map((rule) => ({ rule, anchors: [0] }));
  await work.forRequest({ identity: "a", accessKey: "a" }).checkRules(model, checks, 1_000_000);
  // Budget 30: the three together need 54 visits, each alone at most 24.
  const fresh = ["[+A]s1 | false", "[+A][+A]s2 | false", "<+A><+A><+A>s0 | false"].map((t, i) =>
    parseRuleRecord(t, `/rules/q${i}`, 0),
  );
  await assert.rejects(
    work.forRequest({ identity: "b", accessKey: "b" }).checkRules(
      model,
      fresh.map((rule) => ({ rule, anchors: [0] })),
      30,
    ),
    (e: ContractError) => e.details?.reason === "check_budget" && e.details?.budget === 30,
  );
  // Each alone fits in the budget: a request of one rule passes.
  for (const rule of fresh)
    await work.forRequest({ identity: "c", accessKey: "c" }).checkRules(model, [{ rule, anchors: [0] }], 30);
});
