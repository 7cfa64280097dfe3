/**
 * The work budget covers the replays a commit asks for (docs/security.md, "Hostile load"): a
 * MODEL commit replays the whole log through the new model, on the event loop in slices. That
 * time was charged to nobody (the slices were the hub's own) and no allowance was asked for,
 * so a writer of a long contract could alternate two models for free, each commit replaying
 * the log again (3,000 commits: four MODEL commits cost 1.3 s and charged 2 ms). Now the
 * slices of a request's replays and wide decisions are charged to its caller, and a caller
 * out of allowance is refused at the first one (429 work_budget); its ordinary commits still
 * go through. The budget's clock is pinned, so the refusal does not depend on time.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { WireCommit } from "../src/contract/Commit.js";
import type { Caller } from "../src/hub/HubApi.js";
import { HeavyWork, workKey } from "../src/hub/heavy/HeavyWork.js";
import { Actor, cleanup, openHub, signedCommit } from "./hub-fixtures.js";

const A = "model A {\n  initial s\n  s -> s [+MODEL]\n  s -> s []\n}";
const B = 'model B {\n  initial s\n  s -> s [+MODEL]\n  s -> s [+post_to(/x.text, "1")]\n  s -> s []\n}';

async function longContract(commits: number) {
  const work = new HeavyWork({ workBudgetMs: 5_000, now: () => 1_000_000 });
  const hub = await openHub(undefined, { work });
  const owner = new Actor("owner");
  const { contract_id: id } = await hub.createContract(owner.caller, { model: A, rules: [] });
  let head = (await hub.getState(owner.caller, id)).head;
  const chain: WireCommit[] = [];
  for (let i = 0; i < commits; i++) {
    const c = signedCommit(id, head, [{ method: "post", path: `/n/${i}.text`, value: "v" }]);
    chain.push(c);
    head = c.hash;
  }
  await hub.push(owner.caller, id, { commits: chain });
  const model = (text: string) => ({
    contract_id: id,
    method: "model",
    path: "/model/default.modality",
    value: text,
  });
  return { hub, work, owner, id, model };
}

describe("work budget: the replays a commit asks for", () => {
  after(cleanup);

  it("a caller out of allowance is refused 429 work_budget at the replay; its ordinary commits go through", async () => {
    const { hub, work, owner, id, model } = await longContract(100);
    try {
      work.budget.charge(workKey(owner.caller), 6_000);
      const details = await assertContractErrorAsync(
        () => hub.submitCommit(owner.caller, id, model(B)),
        "RATE_LIMITED",
        "work_budget",
      );
      assert.ok(Number(details.retry_after) >= 1);
      const state = await hub.getState(owner.caller, id);
      assert.equal(state.commit_count, 101, "nothing appended");
      const { result } = await hub.submitCommit(owner.caller, id, {
        contract_id: id,
        method: "post",
        path: "/cheap.text",
        value: "still fine",
      });
      assert.equal(result.index, 101);
    } finally {
      await hub.close();
    }
  });

  it("reading proposals on a wide model is charged to the reader: out of allowance, 429; on an ordinary model, read", async () => {
    // Each proposal view recomputes `missing` over the transitions leaving the state: 100 open
    // proposals on a model leaving its state by 20,000 transitions held the hub ~4 s per read.
    const work = new HeavyWork({ workBudgetMs: 5_000, now: () => 1_000_000 });
    const hub = await openHub(undefined, { work });
    try {
      const owner = new Actor("owner");
      const reader: Caller = { identity: null, accessKey: null, address: "10.9.8.7" };
      const contract = async (transitions: number) => {
        const lines = ["model Sign {", "  initial s", "  s -> s [+signed_by(/users/owner.id)]"];
        for (let i = 0; i < transitions; i++) lines.push(`  s -> s [+post_to(/x.text, "${i}")]`);
        lines.push("}");
        const { contract_id: id } = await hub.createContract(owner.caller, {
          model: lines.join("\n"),
          rules: [],
          state: { "/users/owner.id": owner.key },
        });
        const head = (await hub.getState(owner.caller, id)).head;
        const proposal = signedCommit(id, head, [{ method: "post", path: "/y.text", value: "y" }]);
        await hub.propose(owner.caller, id, { commit: proposal });
        return { id, hash: proposal.hash };
      };
      const wide = await contract(500);
      const narrow = await contract(2);
      work.budget.charge(workKey(reader), 6_000);
      await assertContractErrorAsync(() => hub.listProposals(reader, wide.id, {}), "RATE_LIMITED", "work_budget");
      await assertContractErrorAsync(() => hub.getProposal(reader, wide.id, wide.hash), "RATE_LIMITED", "work_budget");
      const { proposals } = await hub.listProposals(reader, narrow.id, {});
      assert.equal(proposals.length, 1);
      assert.deepEqual(
        proposals[0]!.missing.map((m) => m.predicate),
        ["+signed_by(/users/owner.id)"],
      );
      // The owner, with its own allowance, still reads the wide one.
      const mine = await hub.listProposals(owner.caller, wide.id, {});
      assert.equal(mine.proposals.length, 1);
    } finally {
      await hub.close();
    }
  });

  it("a proposal's model checks are the proposer's work: out of allowance, 429 and nothing stored", async () => {
    // Proposals were decided with the hub's own checker: uncharged, never admitted, and each
    // of the decision's passes (as it is, then as if every key had signed) with a whole budget.
    let clock = 1_000_000;
    const work = new HeavyWork({ workBudgetMs: 5_000, now: () => clock });
    const hub = await openHub(undefined, { work });
    try {
      const owner = new Actor("owner");
      const model = "model Rules {\n  initial s\n  s -> s [+RULE +signed_by(/users/owner.id)]\n}";
      const { contract_id: id } = await hub.createContract(owner.caller, {
        model,
        rules: [],
        state: { "/users/owner.id": owner.key },
      });
      const head = (await hub.getState(owner.caller, id)).head;
      const rule = (name: string) =>
        signedCommit(id, head, [
          { method: "rule", path: `/rules/${name}.modality`, value: `rule ${name} { formula { always(s) } }` },
        ]);
      work.budget.charge(workKey(owner.caller), 6_000);
      await assertContractErrorAsync(
        () => hub.propose(owner.caller, id, { commit: rule("spent") }),
        "RATE_LIMITED",
        "work_budget",
      );
      assert.deepEqual((await hub.listProposals(owner.caller, id, {})).proposals, []);
      // With allowance again the same kind of proposal is stored, missing the owner's signature.
      clock += 5 * 60_000;
      const { proposal } = await hub.propose(owner.caller, id, { commit: rule("fresh") });
      assert.equal(proposal.status, "open");
      assert.deepEqual(
        proposal.missing.map((m) => m.predicate),
        ["+signed_by(/users/owner.id)"],
      );
    } finally {
      await hub.close();
    }
  });
});
