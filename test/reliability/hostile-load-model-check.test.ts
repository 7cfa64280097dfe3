/**
 * Hostile load, model checking (docs/reliability.md, docs/security.md): one signed
 * `POST /contracts` of a 3,000-state cycle with 60 nested fixed-point rules, each under the
 * old per-rule budget, used to freeze the hub for ~22 s. Now the checks run on the worker
 * pool under one budget for the whole request: the attack is refused with 422
 * `check_budget`, `GET /health` keeps answering and another contract's commit goes through
 * while it runs. A single over-budget rule on a 40,000-state model (a 0.9 MB text whose
 * parse and compile took most of a second in one go) shows the compile yields too.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ContractError } from "../../src/contract/ContractError.js";
import {
  cycleModel,
  HEALTH_BOUND_MS,
  HealthProbe,
  heavyRules,
  report,
  STORES,
  startHostileHub,
} from "./support/hostileLoad.js";
import { Party } from "./support/party.js";
import { Rng } from "./support/seeded.js";

const ATTACKS = [
  { name: "60 rules on a 3,000-state cycle", states: 3000, rules: 60 },
  // Most of a second of parsing and compiling before any check: done in slices that yield.
  { name: "one rule on a 40,000-state cycle", states: 40_000, rules: 1 },
];

for (const kind of STORES) {
  describe(`hostile load: model checking (${kind})`, { timeout: 600_000 }, () => {
    for (const attack of ATTACKS) {
      it(`${attack.name}: 422 check_budget, /health answers, another commit goes through`, async () => {
        const hub = await startHostileHub(kind);
        const rng = new Rng(14);
        const attacker = new Party(rng);
        const honest = new Party(rng);
        await attacker.register(hub.url);
        await honest.register(hub.url);
        const other = await honest.client(hub.url).createContract({ model: null, rules: [] });

        const probe = new HealthProbe(hub.url);
        const started = performance.now();
        const attempt = attacker
          .client(hub.url)
          .createContract({ model: cycleModel(attack.states), rules: heavyRules(attack.rules, attack.states) })
          .then(
            () => null,
            (err: ContractError) => err,
          )
          .finally(() => {
            attackMs = performance.now() - started;
          });
        let attackMs = Number.NaN;
        // Another contract's commit while the checks run.
        await new Promise((r) => setTimeout(r, 100));
        const commitStarted = performance.now();
        const committed = await honest
          .client(hub.url)
          .submitCommit(other.contract_id, { method: "post", path: "/note.text", value: "still here" });
        const commitMs = performance.now() - commitStarted;
        const refusal = await attempt;
        const health = await probe.stop();
        await hub.stop();

        report(`model-check ${kind} ${attack.name}`, {
          attackMs: Math.round(attackMs),
          commitMs: Math.round(commitMs),
          commitBeforeAttackEnded: commitStarted + commitMs < started + attackMs,
          health,
        });
        assert.ok(refusal !== null, "the attack must be refused");
        assert.equal(refusal.code, "VALIDATION_FAILED");
        assert.equal(refusal.details?.reason, "check_budget");
        assert.equal(refusal.details?.budget, 100_000_000);
        assert.equal(committed.index, 1);
        assert.equal(health.failures, 0);
        assert.ok(health.maxMs <= HEALTH_BOUND_MS, `GET /health took ${health.maxMs} ms during the attack`);
      });
    }
  });
}
