import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { CommitSigner } from "../src/contract/buildWireCommit.js";
import { synthesize } from "../src/synthesis/index.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { anthropicReply, FakeLlmServer } from "./support/FakeLlmServer.js";
import { Party } from "./support/Party.js";

// What a language model may well answer: a 2-of-3 treasury whose proposals lapse at a
// deadline, written without -modifies, so any step could post a key under /signers or move
// the deadline alongside its action.
const MODEL = `model treasury {
  initial idle
  idle -> proposed [+PROPOSE +any_signed(/signers)]
  proposed -> executed [+EXECUTE +threshold(2, /signers) +before(/terms/deadline.datetime)]
  proposed -> idle [+EXPIRE +any_signed(/signers) +after(/terms/deadline.datetime)]
  executed -> executed []
}`;
const RULE = `export default rule {
  starting_at $PARENT
  formula { always(!executed -> [-threshold(2, /signers)] !executed) }
}`;
const ANSWER = [
  "## Model",
  "```modality",
  MODEL,
  "```",
  "## Rules",
  "```modality",
  RULE,
  "```",
  "## Parties",
  "- alice: signer",
  "- bob: signer",
  "- carol: signer",
  "## Protections",
  "- alice: nothing executes without two signatures",
  "- bob: nothing executes without two signatures",
  "- carol: nothing executes without two signatures",
].join("\n");

let fake: FakeLlmServer;
before(async () => {
  fake = await FakeLlmServer.start();
});
after(() => fake.close());

describe("a language model's contract cannot be rewritten by what its commits post", () => {
  it("every step gets -modifies of the quorum's directory and the deadline, and the cheats are refused", async () => {
    fake.script(anthropicReply(ANSWER));
    const r = await synthesize(
      { description: "Alice, Bob and Carol share a treasury; two of them sign, before the deadline." },
      { env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url, HUB_LLM_TIMEOUT_MS: "2000" } },
    );
    assert.equal(r.source, "llm");
    assert.deepEqual(r.rules, [RULE]);
    for (const line of r.model.split("\n").filter((l) => /\[.+\]/.test(l))) {
      assert.ok(line.includes("-modifies(/signers)"), line);
      assert.ok(line.includes("-modifies(/terms/deadline.datetime)"), line);
    }
    assert.match(r.model, /executed -> executed( \[\])?\n/, "an outcome's self-loop stays unlabeled");

    const [alice, bob, carol, sock] = ["alice", "bob", "carol", "sock"].map((n) => new Party(n));
    const d = await ContractDriver.create("llm_treasury", {
      model: r.model,
      rules: r.rules,
      owner: alice!.identity,
      state: {
        "/signers/alice.id": alice!.key,
        "/signers/bob.id": bob!.key,
        "/signers/carol.id": carol!.key,
        "/terms/deadline.datetime": "2030-01-01T00:00:00Z",
      },
    });
    const asAlice: CommitSigner = { key: alice!.seed, as: "/signers/alice.id" };
    // Alice adds a key of her own to the quorum while proposing: refused.
    await assertContractErrorAsync(
      () => d.commit([op.post("/signers/sock.id", sock!.key), op.action("PROPOSE")], [asAlice]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("PROPOSE")], [asAlice]);
    // Alone, she cannot execute, nor make the proposal lapse by moving the deadline.
    await assertContractErrorAsync(
      () => d.commit([op.action("EXECUTE")], [asAlice]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await assertContractErrorAsync(
      () =>
        d.commit(
          [op.post("/terms/deadline.datetime", "2020-01-01T00:00:00Z"), op.action("EXECUTE")],
          [asAlice, { key: bob!.seed, as: "/signers/bob.id" }],
        ),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(d.state.data.has("/signers/sock.id"), false);
    assert.equal(d.state.data.get("/terms/deadline.datetime"), "2030-01-01T00:00:00Z");
    await d.commit([op.action("EXECUTE")], [asAlice, { key: bob!.seed, as: "/signers/bob.id" }]);
  });

  it("a step that moves a term on purpose (+modifies) is left free to write it", async () => {
    const renewal = `model sub {
  initial active
  active -> active [+RENEW +signed_by(/users/alice.id) +modifies(/terms/paid_until.datetime)]
  active -> suspended [+SUSPEND +signed_by(/users/bob.id) +after(/terms/paid_until.datetime)]
  suspended -> active [+RENEW +signed_by(/users/alice.id) +modifies(/terms/paid_until.datetime)]
}`;
    fake.script(anthropicReply(ANSWER.replace(MODEL, renewal).replace(RULE, "always(true)")));
    const r = await synthesize(
      { description: "Alice subscribes to Bob's service." },
      { env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url, HUB_LLM_TIMEOUT_MS: "2000" } },
    );
    const lines = r.model.split("\n");
    for (const l of lines.filter((x) => x.includes("+RENEW"))) {
      assert.ok(!l.includes("-modifies("), l);
    }
    assert.ok(lines.find((x) => x.includes("+SUSPEND"))!.includes("-modifies(/terms/paid_until.datetime)"));
  });
});
