/**
 * Replay (LANGUAGE.md §4, PROTOCOL.md §2): random valid logs replay to exactly the state
 * built incrementally; any damaged stored field is CORRUPTED at exactly the damaged commit;
 * batch signature pre-verification resolves signer paths posted earlier in the batch.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation } from "../src/contract/Commit.js";
import {
  acceptCommit,
  applyDelta,
  type ContractState,
  replayLog,
  type StoredCommit,
  verifyBatchSignatures,
} from "../src/contract/engine.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { Party } from "./support/Party.js";

const PARTIES = [0, 1, 2].map((i) => new Party(`p${i}`, Buffer.alloc(32, i + 1)));

interface GenTransition {
  from: number;
  to: number;
  action: string | null;
  signer: number | null;
  kind: "plain" | "rule" | "model";
}

interface GenStep {
  pick: number;
  posts: Array<{ key: number; value: unknown }>;
  extraSigner: number | null;
}

const transitionArb = (states: number) =>
  fc.record({
    from: fc.nat({ max: states - 1 }),
    to: fc.nat({ max: states - 1 }),
    action: fc.option(fc.constantFrom("A", "B", "C"), { nil: null }),
    signer: fc.option(fc.nat({ max: PARTIES.length - 1 }), { nil: null }),
    kind: fc.constantFrom<GenTransition["kind"]>("plain", "plain", "plain", "rule", "model"),
  });

const valueArb = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.dictionary(fc.constantFrom("z", "a", "m", "b"), fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), {
    maxKeys: 4,
  }),
);

const caseArb = fc.integer({ min: 2, max: 4 }).chain((states) =>
  fc.record({
    states: fc.constant(states),
    transitions: fc.array(transitionArb(states), { minLength: 1, maxLength: 8 }),
    steps: fc.array(
      fc.record({
        pick: fc.nat(),
        posts: fc.array(fc.record({ key: fc.nat({ max: 3 }), value: valueArb }), { maxLength: 2 }),
        extraSigner: fc.option(fc.nat({ max: PARTIES.length - 1 }), { nil: null }),
      }),
      { maxLength: 12 },
    ),
  }),
);

function modelText(states: number, transitions: GenTransition[]): string {
  const lines = transitions.map((t) => {
    const label = [
      ...(t.action ? [`+${t.action}`] : []),
      ...(t.signer !== null ? [`+signed_by(/users/p${t.signer}.id)`] : []),
      ...(t.kind === "rule" ? ["+RULE"] : t.kind === "model" ? ["+MODEL"] : []),
    ];
    return `  s${t.from} -> s${t.to} [${label.join(" ")}]`;
  });
  return `model Random {\n  initial s0\n${lines.join("\n")}\n  s${states - 1} -> s${states - 1} []\n}`;
}

function snapshot(s: ContractState) {
  return {
    head: s.head,
    length: s.length,
    data: [...s.data],
    current: s.currentStateNames,
    model: s.model?.text ?? null,
    rules: s.rules.map((r) => ({ path: r.path, text: r.text, anchor: r.anchorIndex })),
  };
}

async function buildRandomLog(c: { states: number; transitions: GenTransition[]; steps: GenStep[] }) {
  // Every state can move on, so logs do not stop at a dead end after a commit or two.
  const ring: GenTransition[] = Array.from({ length: c.states }, (_, i) => ({
    from: i,
    to: (i + 1) % c.states,
    action: "NEXT",
    signer: i % PARTIES.length,
    kind: "plain",
  }));
  const transitions = [...c.transitions, ...ring];
  const model = modelText(c.states, transitions);
  const state: Record<string, unknown> = {};
  for (const p of PARTIES) state[`/users/${p.name}.id`] = p.key;
  const d = await ContractDriver.create("random1", {
    model,
    rules: ["always(true)"],
    owner: PARTIES[0]!.identity,
    state,
  });
  const lts = d.state.model!.lts;
  for (const [n, s] of c.steps.entries()) {
    const from = new Set(d.state.current);
    const outgoing = transitions.filter((t) => from.has(lts.displayNames.indexOf(`s${t.from}`)));
    if (outgoing.length === 0) break;
    const t = outgoing[s.pick % outgoing.length]!;
    const ops: Operation[] = s.posts.map((p) =>
      op.post(typeof p.value === "string" ? `/data/k${p.key}.text` : `/data/k${p.key}.json`, p.value),
    );
    if (t.kind === "rule") ops.push(op.rule(`/rules/r${n}.modality`, "eventually(true)"));
    if (t.kind === "model") ops.push(op.model(model));
    if (t.action) ops.push(op.action(t.action));
    if (ops.length === 0) ops.push(op.post("/data/tick.text", String(n)));
    const signers = [t.signer, s.extraSigner].filter((x): x is number => x !== null).map((i) => PARTIES[i]!);
    await d.commit(ops, [...new Set(signers)]);
  }
  return d;
}

describe("replay determinism", () => {
  it("replayLog of a random valid log gives exactly the incremental state (fast-check)", async (t) => {
    const seed = Number(process.env.ENGINE_FC_SEED ?? Date.now() % 2 ** 31);
    t.diagnostic(`fast-check seed ${seed} (rerun with ENGINE_FC_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const d = await buildRandomLog(c);
        const untrusted = await replayLog(d.contractId, d.log);
        assert.deepEqual(snapshot(untrusted), snapshot(d.state));
        const trusted = await replayLog(d.contractId, d.log, { trusted: true });
        assert.deepEqual(snapshot(trusted), snapshot(d.state));
      }),
      { seed, numRuns: 60 },
    );
  });
});

describe("tampering", () => {
  const START = 1_700_000_000;
  const MODEL = `model T {
    initial open
    open -> open [+NOTE +signed_by(/users/a.id)]
    open -> closed [+CLOSE +before(/terms/deadline.datetime) +signed_by(/users/b.id)]
    closed -> closed []
  }`;
  /** A 5-commit log: genesis, two signed notes, a deadline-guarded CLOSE, an unsigned post. */
  async function log(): Promise<{ contractId: string; log: StoredCommit[] }> {
    const [a, b] = [new Party("a"), new Party("b")];
    const d = await ContractDriver.create("tamper1", {
      model: MODEL,
      rules: [],
      owner: a.identity,
      state: {
        "/users/a.id": a.key,
        "/users/b.id": b.key,
        "/terms/deadline.datetime": new Date((START + 100) * 1000).toISOString(),
      },
    });
    await d.commit([op.post("/notes/1.text", "first"), op.action("NOTE")], [a]);
    await d.commit([op.post("/notes/2.json", { k: "v" }), op.action("NOTE")], [a]);
    await d.commit([op.action("CLOSE")], [b]);
    await d.commit([op.post("/notes/3.text", "after")]);
    assert.ok(d.log[3]!.timestamp < START + 100);
    return { contractId: d.contractId, log: d.log };
  }

  const flip = (s: string) => s.slice(0, -1) + (s.endsWith("0") ? "1" : "0");

  type Tamper = (c: StoredCommit) => boolean;
  const TAMPERS: Record<string, Tamper> = {
    hash: (c) => {
      c.hash = flip(c.hash);
      return true;
    },
    parent: (c) => {
      c.parent = c.parent === null ? "0".repeat(64) : flip(c.parent);
      return true;
    },
    data: (c) => {
      const o = c.data.find((x) => typeof x.value === "string" && x.value.length > 0);
      if (o === undefined) return false;
      o.value = flip(o.value as string);
      return true;
    },
    signature: (c) => {
      const [k] = Object.keys(c.signatures);
      if (k === undefined) return false;
      c.signatures[k] = flip(c.signatures[k]!);
      return true;
    },
    signers: (c) => {
      if (c.signers.length === 0) c.signers.push(PARTIES[0]!.key);
      else c.signers[0] = flip(c.signers[0]!);
      return true;
    },
  };
  const EXPECTED_CAUSE: Record<string, string | undefined> = {
    hash: "hash_mismatch",
    parent: "hash_mismatch",
    data: "hash_mismatch",
    signature: "bad_signature",
    signers: undefined,
  };

  it("a flipped byte in any field of any commit is CORRUPTED at exactly that commit", async () => {
    const base = await log();
    assert.equal((await replayLog(base.contractId, base.log)).length, 5);
    let tried = 0;
    for (let i = 0; i < base.log.length; i++) {
      for (const [field, tamper] of Object.entries(TAMPERS)) {
        const damaged = structuredClone(base.log);
        if (!tamper(damaged[i]!)) continue;
        tried++;
        const details = await assertContractErrorAsync(
          () => replayLog(base.contractId, damaged),
          "CORRUPTED",
          "corrupted",
        );
        assert.equal(details.index, i, `${field} of commit ${i}`);
        const cause = details.cause as { reason?: string } | undefined;
        if (i > 0 || field !== "parent") assert.equal(cause?.reason, EXPECTED_CAUSE[field], `${field} of commit ${i}`);
      }
    }
    assert.ok(tried >= 20, `only ${tried} tamperings applied`);
  });

  it("moving a deadline-guarded commit's stored timestamp past the deadline is CORRUPTED there", async () => {
    const base = await log();
    const damaged = structuredClone(base.log);
    damaged[3]!.timestamp = START + 100;
    const details = await assertContractErrorAsync(() => replayLog(base.contractId, damaged), "CORRUPTED", "corrupted");
    assert.equal(details.index, 3);
    assert.equal((details.cause as { reason: string }).reason, "no_transition");
  });

  it("a deleted commit is detected, renumbered or not", async () => {
    const base = await log();
    // Dropping the tip leaves a shorter valid log: only the stored head can tell (docs/engine.md).
    for (let k = 1; k < base.log.length - 1; k++) {
      const gap = structuredClone(base.log);
      gap.splice(k, 1);
      let details = await assertContractErrorAsync(() => replayLog(base.contractId, gap), "CORRUPTED", "corrupted");
      assert.equal(details.index, k);
      const renumbered = gap.map((c, i) => ({ ...c, index: i }));
      details = await assertContractErrorAsync(() => replayLog(base.contractId, renumbered), "CORRUPTED", "corrupted");
      assert.equal(details.index, k);
      assert.equal((details.cause as { reason: string }).reason, "stale_parent");
    }
  });
});

describe("batch signature pre-verification", () => {
  async function open() {
    const owner = new Party("owner");
    const d = await ContractDriver.create("batch1", {
      model: "model B {\n  initial s\n  s -> s [+POST]\n  s -> s [+SIGNED +signed_by(/users/new.id)]\n}",
      rules: [],
      owner: owner.identity,
      state: { "/users/owner.id": owner.key },
    });
    return { d, owner };
  }

  it("resolves a signer path whose key is posted earlier in the same batch", async () => {
    const { d, owner } = await open();
    const fresh = new Party("new");
    const first = buildWireCommit(
      d.contractId,
      d.state.head,
      [op.post("/users/new.id", fresh.key)],
      [{ key: owner.seed, as: "/users/owner.id" }],
    );
    const second = buildWireCommit(
      d.contractId,
      first.hash,
      [op.action("SIGNED")],
      [{ key: fresh.seed, as: "/users/new.id" }],
    );
    const verified = await verifyBatchSignatures(d.state, [first, second]);
    assert.deepEqual(verified, [[owner.key], [fresh.key]]);
    // Alone, the second commit's signer path is unknown in the current state.
    assert.deepEqual(await verifyBatchSignatures(d.state, [second]), [undefined]);
    for (const [i, commit] of [first, second].entries()) {
      const { stored, delta } = await acceptCommit(d.state, commit, d.context({ verifiedSigners: verified[i]! }));
      applyDelta(d.state, delta);
      d.log.push(stored);
    }
    assert.deepEqual(d.log[2]!.signers, [fresh.key]);
    const replayed = await replayLog(d.contractId, d.log);
    assert.equal(replayed.head, second.hash);
  });

  it("leaves undefined for a bad signature or a malformed commit; in-order validation names the error", async () => {
    const { d, owner } = await open();
    const intruder = new Party("intruder");
    const first = buildWireCommit(d.contractId, d.state.head, [op.post("/users/new.id", intruder.key)]);
    const forged = buildWireCommit(
      d.contractId,
      first.hash,
      [op.action("SIGNED")],
      [{ key: owner.seed, as: "/users/new.id" }],
    );
    const verified = await verifyBatchSignatures(d.state, [first, forged, { hash: "nope" }]);
    assert.deepEqual(verified, [[], undefined, undefined]);
    await d.append(first, { verifiedSigners: verified[0]! });
    await assertContractErrorAsync(() => d.append(forged), "VALIDATION_FAILED", "bad_signature");
  });
});
