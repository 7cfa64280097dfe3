import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { CommitSigner } from "../src/contract/buildWireCommit.js";
import { checkAtInitial } from "../src/lang/check.js";
import { compileModel } from "../src/lang/Lts.js";
import { parseModel, parseRule } from "../src/lang/parser.js";
import { patternSynthesize } from "../src/synthesis/index.js";
import { FAMILIES } from "../src/synthesis/patterns/families.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { Party } from "./support/Party.js";

/** Variations a description can ask for, composed with every family. */
const VARIATIONS: Array<[string, string]> = [
  ["plain", ""],
  ["arbiter", " Carol arbitrates any dispute."],
  ["deadline", " It must be done by June 1."],
  ["refund", " If it fails, the money is refunded."],
  ["all", " Carol arbitrates any dispute. It must be done by June 1, else a refund."],
];

describe("every family composes with every variation into a checked contract", () => {
  for (const family of FAMILIES) {
    for (const [name, extra] of VARIATIONS) {
      it(`${family.id} + ${name}`, () => {
        const r = patternSynthesize(`Alice and Bob make a deal.${extra}`, family.id);
        assert.ok(r, "no answer");
        assert.equal(r.patterns[0], family.id);
        assert.ok(r.confidence > 0 && r.confidence <= 1);
        const lts = compileModel(parseModel(r.model));
        assert.ok(r.rules.length >= 1);
        for (const rule of r.rules) assert.ok(checkAtInitial(lts, parseRule(rule).formula).holds, rule);
        assert.equal(
          r.warnings.some((w) => w.startsWith("dropped a rule")),
          false,
          r.warnings.join("\n"),
        );
        for (const p of r.parties) {
          assert.ok(r.protections[p], `no protection for ${p}`);
          assert.ok(
            r.model.includes(`/${p}.id`) || r.model.includes(`(/${p})`) || /\/(signers|committee)\)/.test(r.model),
            `${p} appears in no signature`,
          );
        }
        if (name === "arbiter" && family.roles.some((x) => x.role === "arbiter")) {
          assert.ok(r.model.includes("/users/carol.id"), "a named arbiter signs");
        }
      });
    }
  }

  it("keeps named people bound to their roles, whatever the order of the sentence", () => {
    for (const text of [
      "Alice buys a bike from Bob",
      "Bob sells a bike to Alice",
      "The buyer Alice pays the seller Bob",
    ]) {
      const r = patternSynthesize(text)!;
      assert.match(r.model, /\+DEPOSIT \+signed_by\(\/users\/alice\.id\)/, text);
      assert.match(r.model, /\+DELIVER \+signed_by\(\/users\/bob\.id\)/, text);
    }
    const loan = patternSynthesize("Mia borrows 300 from Ned and repays it by the end of the year")!;
    assert.match(loan.model, /\+LEND \+signed_by\(\/users\/ned\.id\)/);
    assert.match(loan.model, /\+REPAY \+signed_by\(\/users\/mia\.id\) \+before/);
  });

  it("reads any number of milestones and handoffs", () => {
    const m = patternSynthesize("Ann hires Ben to build a house in 7 milestones")!;
    assert.ok(m.model.includes("+PAY_M7"));
    assert.equal(m.model.includes("+PAY_M8"), false);
    const chain = patternSynthesize("A crate is handed from Ada to Bo to Cy to Di to Ed")!;
    assert.equal(chain.patterns[0], "supply_chain");
    assert.deepEqual(chain.parties, ["ada", "bo", "cy", "di", "ed"]);
    assert.ok(chain.model.includes("+RECEIVE_4 +signed_by(/users/ed.id)"));
  });

  it("warns when it guessed: weak cues, rival readings, names without a role, unenforced amounts", () => {
    const r = patternSynthesize("Alice pays Bob 40 dollars monthly for cleaning services")!;
    assert.ok(r.warnings.some((w) => w.includes("also reads as")));
    assert.ok(r.warnings.some((w) => w.includes("40 dollars")));
    const extra = patternSynthesize("Alice buys a bike from Bob, and Zed is a witness")!;
    assert.ok(extra.warnings.some((w) => w.includes("given no role: zed")));
  });
});

/** The paths a model's predicates read a term from: threshold directories and deadlines. */
function termPaths(model: string): string[] {
  const paths = new Set<string>();
  for (const m of model.matchAll(/\+threshold\(\d+, ([^)]+)\)|\+(?:after|before)\(([^)]+)\)/g))
    paths.add((m[1] ?? m[2])!);
  return [...paths];
}

describe("no step of a synthesized contract rewrites a term its predicates read", () => {
  it("every labelled step carries +modifies or -modifies of each such path, in every family and variation", () => {
    for (const family of FAMILIES) {
      for (const [name, extra] of VARIATIONS) {
        const r = patternSynthesize(`Alice and Bob make a deal.${extra}`, family.id)!;
        for (const path of termPaths(r.model)) {
          for (const line of r.model.split("\n").filter((l) => /->.*\[.+\]/.test(l))) {
            assert.ok(line.includes(`modifies(${path})`), `${family.id} + ${name}: ${line.trim()} may rewrite ${path}`);
          }
        }
      }
    }
  });

  it("a multisig signer cannot add a key of its own under /signers to meet the threshold alone", async () => {
    const r = patternSynthesize("Alice, Bob and Carol share a treasury; any two of them must sign to move the funds.")!;
    const [alice, bob, carol, sock] = ["alice", "bob", "carol", "sock"].map((n) => new Party(n));
    const d = await ContractDriver.create("synth_multisig", {
      model: r.model,
      rules: r.rules,
      owner: alice!.identity,
      state: { "/signers/alice.id": alice!.key, "/signers/bob.id": bob!.key, "/signers/carol.id": carol!.key },
    });
    const asAlice: CommitSigner = { key: alice!.seed, as: "/signers/alice.id" };
    await assertContractErrorAsync(
      () => d.commit([op.post("/signers/sock.id", sock!.key), op.action("PROPOSE")], [asAlice]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("PROPOSE")], [asAlice]);
    await assertContractErrorAsync(
      () => d.commit([op.action("EXECUTE")], [asAlice, { key: sock!.seed, as: "/signers/sock.id" }]),
      "VALIDATION_FAILED",
    );
  });

  it("an escrow buyer cannot move the deadline to reclaim the deposit at once", async () => {
    const r = patternSynthesize("Alice buys a bike from Bob. It must be delivered by June 1, else a refund.")!;
    const [alice, bob] = ["alice", "bob"].map((n) => new Party(n));
    const d = await ContractDriver.create("synth_escrow", {
      model: r.model,
      rules: r.rules,
      owner: alice!.identity,
      state: {
        "/users/alice.id": alice!.key,
        "/users/bob.id": bob!.key,
        "/terms/deadline.datetime": "2030-06-01T00:00:00Z",
      },
    });
    await assertContractErrorAsync(
      () => d.commit([op.post("/terms/deadline.datetime", "2020-01-01T00:00:00Z"), op.action("DEPOSIT")], [alice!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("DEPOSIT")], [alice!]);
    await assertContractErrorAsync(
      () => d.commit([op.action("RECLAIM")], [alice!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
  });
});
