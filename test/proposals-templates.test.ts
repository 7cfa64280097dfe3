/**
 * Every template transition that needs two or more parties is reachable through proposals:
 * for each one, a fresh contract is driven to its source state and the transition taken,
 * every step by proposing the commit unsigned and adding the missing signatures one party at
 * a time (each from its own key), as parties on separate machines would.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { signCommit } from "../src/contract/commitHash.js";
import { compileGoverningModel } from "../src/contract/compileGoverningModel.js";
import { buildCommit } from "../src/contract/engine.js";
import type { LtsTransition } from "../src/lang/Lts.js";
import { TEMPLATE_DEFINITIONS } from "../src/templates/templateDefinitions.js";
import { Writer } from "./support/pgHubs.js";
import { type TestApp, testApp } from "./support/testApps.js";

const SIGNATURE = new Set(["signed_by", "threshold", "any_signed", "all_signed"]);

/** Distinct parties a transition needs at least (signed_by paths, threshold counts, all_signed as two or more). */
function partiesNeeded(t: LtsTransition): number {
  let n = 0;
  const paths = new Set<string>();
  for (const p of t.label) {
    if (p.sign !== "+" || !SIGNATURE.has(p.name)) continue;
    if (p.name === "signed_by") paths.add(p.args![0]!);
    else if (p.name === "threshold") n = Math.max(n, Number(p.args![0]));
    else if (p.name === "all_signed") n = Math.max(n, 2);
  }
  return Math.max(n, paths.size);
}

/** A transition a commit can take with action operations and signatures alone (no clock, oracle or posted value). */
function drivable(t: LtsTransition): boolean {
  return t.label.every(
    (p) =>
      p.sign === "-" ||
      SIGNATURE.has(p.name) ||
      p.name === "before" ||
      (p.args === null &&
        /^[A-Z][A-Z0-9_]*$/.test(p.name) &&
        !["POST", "RULE", "MODEL", "REPOST", "CREATE", "SEND", "RECV"].includes(p.name)),
  );
}

describe("template transitions needing several parties, through proposals", { timeout: 300_000 }, () => {
  let t: TestApp;
  before(async () => {
    t = await testApp("rest");
  });
  after(() => t.close());

  for (const def of TEMPLATE_DEFINITIONS) {
    it(def.id, async () => {
      const keys = new Map<string, Writer>();
      const fresh = () => {
        const w = new Writer();
        keys.set(w.key, w);
        return w;
      };
      const params: Record<string, unknown> = {};
      for (const p of def.params) {
        if (p.type === "pubkey") params[p.name] = fresh().key;
        else if (p.type === "pubkeys") params[p.name] = [fresh().key, fresh().key, fresh().key];
        else if (def.exampleValues[p.name] !== undefined) params[p.name] = def.exampleValues[p.name];
        else if (p.default !== undefined) params[p.name] = p.default;
        else if (p.required) params[p.name] = p.type === "integer" ? 2 : "x";
      }
      const owner = keys.values().next().value!;
      const create = async () => {
        const { contract_id } = await t.hub.createContract(owner.caller, { template: def.id, params });
        return contract_id;
      };
      const probe = await create();
      const model = compileGoverningModel((await t.hub.getContract(owner.caller, probe)).model!);
      const lts = model.lts;
      const targets = lts.transitions.filter((tr) => partiesNeeded(tr) >= 2 && drivable(tr));
      // Templates whose every transition is taken by one party (atomic_swap, subscription, service_agreement) have nothing to test here.
      if (["escrow", "milestone", "multisig"].includes(def.id)) assert.ok(targets.length > 0, `${def.id}: none found`);

      // Shortest drivable path from the initial state to every state.
      const pathTo = new Map<number, LtsTransition[]>(lts.initialStates.map((s) => [s, []]));
      const queue = [...lts.initialStates];
      while (queue.length > 0) {
        const s = queue.shift()!;
        for (const tr of lts.transitions) {
          if (tr.from !== s || pathTo.has(tr.to) || !drivable(tr)) continue;
          pathTo.set(tr.to, [...pathTo.get(s)!, tr]);
          queue.push(tr.to);
        }
      }

      for (const target of targets) {
        const id = await create();
        const pulled = await t.hub.pull(owner.caller, id, {});
        const data = new Map<string, unknown>();
        for (const op of pulled.commits[0]!.data) if (op.method === "post") data.set(op.path!, op.value);
        for (const step of [...pathTo.get(target.from)!, target]) {
          const labels = step.label.filter((p) => p.sign === "+" && p.args === null).map((p) => p.name);
          const ops: Operation[] = labels.map((l) => ({ method: "action", value: l }));
          const { head } = await t.hub.getState(owner.caller, id);
          const commit = buildCommit(id, head, ops);
          let { proposal } = await t.hub.propose(owner.caller, id, { commit });
          if (step === target) {
            const needed = proposal.missing.reduce((sum, m) => sum + m.needed, 0);
            assert.ok(
              needed >= 2,
              `${def.id} ${lts.displayNames[step.from]} -> ${lts.displayNames[step.to]} needs ${needed}`,
            );
          }
          for (let guard = 0; proposal.status === "open" && guard < 32; guard++) {
            const signer = proposal.missing[0]!.signers.find((s) => !(s in proposal.signatures))!;
            const key = signer.startsWith("ed25519:") ? signer.slice(8) : (data.get(signer) as string);
            const w = keys.get(key)!;
            ({ proposal } = await t.hub.signProposal(w.caller, id, commit.hash, {
              signatures: { [signer]: signCommit(commit.hash, w.seed) },
            }));
          }
          assert.equal(proposal.status, "committed", `${def.id}: ${step.label.map((p) => p.name).join(" ")}`);
        }
        const state = await t.hub.getState(owner.caller, id);
        assert.ok(
          state.current_states.includes(lts.displayNames[target.to]!),
          `${def.id}: reached ${state.current_states.join("|")}, wanted ${lts.displayNames[target.to]}`,
        );
      }
    });
  }
});
