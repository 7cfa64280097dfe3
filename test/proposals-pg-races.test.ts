/**
 * Proposals on PostgreSQL behind two hub instances, whose contract locks are their own: what
 * one instance does between another's steps (held there by a store wrapper, not by timing)
 * must not undo what the other decided. Signatures judged countable on one instance are stored
 * only if nobody stored others meanwhile; a withdrawal the owner was answered stays one.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { isContractError } from "../src/contract/ContractError.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { Hub } from "../src/hub/Hub.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import type { Store } from "../src/store/Store.js";
import { testDatabase } from "./support/pg.js";
import { Writer } from "./support/pgHubs.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const db = await testDatabase();
const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.splice(0)) await close();
});

type Hook = () => Promise<void>;

/** A hub on `schema` whose store runs `hooks[method]` once, before that method's next call. */
async function instance(schema: string, hooks: Partial<Record<keyof Store, Hook>> = {}): Promise<Hub> {
  const store = await PostgresStore.open({ connectionString: db.url, schema, poolSize: 4 });
  const held = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const hook = hooks[prop as keyof Store];
      if (hook === undefined) return value.bind(target);
      return async (...args: unknown[]) => {
        delete hooks[prop as keyof Store];
        await hook();
        return value.apply(target, args);
      };
    },
  });
  const hub = new Hub({ store: held });
  closing.push(async () => {
    await hub.close();
    await store.close();
  });
  return hub;
}

/** The ContractError code and reason a promise is refused with. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
  try {
    await p;
  } catch (err) {
    if (isContractError(err)) return { code: err.code, reason: err.details?.reason };
    throw err;
  }
  assert.fail("expected a refusal");
}

/** x or y may go with z, but not together: either alone can count, both make the commit impossible. */
const EITHER = `model Either {
  initial a
  a -> b [+GO +signed_by(/users/x.id) +signed_by(/users/z.id) -signed_by(/users/y.id)]
  a -> c [+GO +signed_by(/users/y.id) +signed_by(/users/z.id) -signed_by(/users/x.id)]
  b -> b []
  c -> c []
}`;

describe("proposals on PostgreSQL: one instance acting between another's steps", { timeout: 120_000 }, () => {
  it("refuses a signature judged countable before another instance stored one it cannot go with", async () => {
    const schema = db.freshSchema();
    const [x, y, z] = [new Writer(), new Writer(), new Writer()];
    const b = await instance(schema);
    let id = "";
    let hash = "";
    // a has judged x's signature countable (nothing else was stored); b stores y's before a stores x's.
    const a = await instance(schema, {
      addProposalSignatures: async () => {
        const answer = await b.signProposal(y.caller, id, hash, {
          signatures: { "/users/y.id": signCommit(hash, y.seed) },
        });
        assert.equal(answer.proposal.status, "open");
      },
    });
    id = "either";
    const state = { "/users/x.id": x.key, "/users/y.id": y.key, "/users/z.id": z.key };
    await a.createContract(x.caller, { contract_id: id, model: EITHER, rules: [], state });
    const { head } = await a.getState(x.caller, id);
    const ops: Operation[] = [{ method: "action", value: "GO" }];
    const commit = buildCommit(id, head, ops);
    hash = commit.hash;
    await a.propose(x.caller, id, { commit });
    const refused = await refusal(
      a.signProposal(x.caller, id, hash, { signatures: { "/users/x.id": signCommit(hash, x.seed) } }),
    );
    assert.deepEqual(refused, { code: "VALIDATION_FAILED", reason: "signature_not_counted" });
    const { proposal } = await b.getProposal(x.caller, id, hash);
    assert.deepEqual(Object.keys(proposal.signatures), ["/users/y.id"], "only the signature that was taken is stored");
    const done = await b.signProposal(z.caller, id, hash, { signatures: { "/users/z.id": signCommit(hash, z.seed) } });
    assert.equal(done.proposal.status, "committed");
    assert.equal(done.commit?.new_state.current_state, "c");
  });

  it("does not append a proposal the owner withdrew on another instance after its last signature was decided", async () => {
    const schema = db.freshSchema();
    const b = await instance(schema);
    let withdraw: Hook = async () => {};
    const a = await instance(schema, { appendCommits: () => withdraw() });
    const t = await createTreasury(a, "withdrawn", 2, 2);
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
    c.head.signatures = t.signature(0, c.hash);
    await a.propose(t.signers[0]!.caller, t.id, { commit: c });
    withdraw = async () => {
      const { proposal } = await b.withdrawProposal(t.signers[0]!.caller, t.id, c.hash);
      assert.equal(proposal.status, "withdrawn");
    };
    const refused = await refusal(
      a.signProposal(t.signers[1]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) }),
    );
    assert.deepEqual(refused, { code: "CONFLICT", reason: "proposal_withdrawn" });
    assert.equal((await b.getLog(t.signers[0]!.caller, t.id, {})).total, 1, "nothing appended");
    assert.equal((await b.getProposal(t.signers[0]!.caller, t.id, c.hash)).proposal.status, "withdrawn");
  });

  it("refuses with 409 to withdraw a proposal another instance committed after the withdrawal read it open", async () => {
    const schema = db.freshSchema();
    const a = await instance(schema);
    let complete: Hook = async () => {};
    const b = await instance(schema, { withdrawProposal: () => complete() });
    const t = await createTreasury(a, "committed", 2, 2);
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
    c.head.signatures = t.signature(0, c.hash);
    await a.propose(t.signers[0]!.caller, t.id, { commit: c });
    complete = async () => {
      const done = await a.signProposal(t.signers[1]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) });
      assert.equal(done.proposal.status, "committed");
    };
    const refused = await refusal(b.withdrawProposal(t.signers[0]!.caller, t.id, c.hash));
    assert.deepEqual(refused, { code: "CONFLICT", reason: "proposal_committed" });
    assert.equal((await a.getProposal(t.signers[0]!.caller, t.id, c.hash)).proposal.status, "committed");
  });

  it("answers a duplicate proposal another instance stored first as the existing one (200), not as created", async () => {
    const schema = db.freshSchema();
    const a = await instance(schema);
    let first: Hook = async () => {};
    const b = await instance(schema, { saveProposal: () => first() });
    const t = await createTreasury(a, "twice", 3, 2);
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
    c.head.signatures = t.signature(0, c.hash);
    first = async () => {
      assert.equal((await a.propose(t.signers[0]!.caller, t.id, { commit: c })).created, true);
    };
    const again = await b.propose(t.signers[1]!.caller, t.id, {
      commit: { ...c, head: { ...c.head, signatures: {} } },
    });
    assert.equal(again.created, false);
    assert.equal(again.proposal.status, "open");
    assert.equal(again.proposal.proposer, `ed25519:${t.signers[0]!.key}`);
  });
});
