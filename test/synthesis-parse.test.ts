import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseModel, parseRule } from "../src/lang/parser.js";
import { braceMatches } from "../src/synthesis/braceMatches.js";
import { parseAnswer } from "../src/synthesis/index.js";
import { matchingBrace } from "../src/synthesis/matchingBrace.js";

const MODEL = `model deal {
  initial init
  init -> done [+PAY +signed_by(/users/alice.id)] // pays { in full }
  done -> done []
}`;
const RULE = `export default rule {
  starting_at $PARENT
  formula { always(!done -> [-signed_by(/users/alice.id)] !done) }
}`;

describe("parseAnswer", () => {
  it("reads fenced modality blocks, the parties list and bold protections, with prose around", () => {
    const text = [
      "Sure. The model {as promised}:",
      "```modality",
      MODEL,
      "```",
      "Rules:",
      "```modality",
      "// only alice finishes",
      RULE,
      "```",
      "## Parties",
      "- **Alice** (buyer): pays",
      "- Bob — seller",
      "## Protections",
      "- **Alice**: nobody else can finish the deal",
      "* bob: gets paid",
      "Thanks!",
    ].join("\n");
    const parsed = parseAnswer(text);
    assert.equal(parsed.model, MODEL);
    assert.deepEqual(parsed.rules, [`// only alice finishes\n${RULE}`]);
    assert.deepEqual(parsed.parties, ["alice", "bob"]);
    assert.deepEqual(parsed.protections, { alice: "nobody else can finish the deal", bob: "gets paid" });
    parseModel(parsed.model!);
    parseRule(parsed.rules[0]!);
  });

  it("reads a bare model and rule blocks written in prose, including named rules and braces in comments", () => {
    const text = `I propose ${MODEL} together with ${RULE} and also rule second { formula { always(true) } } done.`;
    const parsed = parseAnswer(text);
    assert.equal(parsed.model, MODEL);
    assert.deepEqual(parsed.rules, [RULE, "rule second { formula { always(true) } }"]);
  });

  it("reads the RFC export default model form", () => {
    const model = "export default model {\n  initial a\n  a -> a []\n}";
    assert.equal(parseAnswer(`\`\`\`\n${model}\n\`\`\``).model, model);
  });

  it("reads a single JSON object with prose around, in several field spellings", () => {
    const json = {
      model: MODEL,
      rules: [RULE, { formula: "always(true)" }],
      parties: [{ name: "Alice" }, "bob"],
      protections: [{ party: "Alice", protection: "safe" }],
    };
    const parsed = parseAnswer(`Here you go:\n${JSON.stringify(json, null, 2)}\nCheers`);
    assert.equal(parsed.model, MODEL);
    assert.deepEqual(parsed.rules, [RULE, "always(true)"]);
    assert.deepEqual(parsed.parties, ["alice", "bob"]);
    assert.deepEqual(parsed.protections, { alice: "safe" });
    const objectParties = parseAnswer(
      JSON.stringify({ model: MODEL, parties: { alice: "buyer" }, protections: { Bob: ["a", "b"] } }),
    );
    assert.deepEqual(objectParties.parties, ["alice"]);
    assert.deepEqual(objectParties.protections, { bob: "a. b" });
  });

  it("reads reference-style formula lists under a Rules heading", () => {
    const parsed = parseAnswer(`## Model\n${MODEL}\n## Rules\nF1: always(<> true)\n- \`eventually(done)\`\n`);
    assert.deepEqual(parsed.rules, ["always(<> true)", "eventually(done)"]);
  });

  it("finds nothing in an answer without a contract", () => {
    assert.deepEqual(parseAnswer("I cannot help with that."), { model: null, rules: [], parties: [], protections: {} });
  });

  it("keeps an unclosed model so the checker can report where it breaks", () => {
    const parsed = parseAnswer("model x {\n  a -> b [+GO");
    assert.equal(parsed.model, "model x {\n  a -> b [+GO");
    assert.throws(() => parseModel(parsed.model!));
  });

  it("reads a degenerate answer (a run of unclosed braces, nested objects, thousands of rules) in one pass per brace run", {
    timeout: 60_000,
  }, () => {
    // Each brace used to be scanned to the end of the text: 100,000 of them took minutes and held the event loop.
    assert.equal(parseAnswer(`"model": ${"{".repeat(100_000)}`).model, null);
    assert.equal(parseAnswer(`"model": ${'{"'.repeat(50_000)}`).model, null);
    // Nested objects were each parsed to their close: 100,000 levels would take hours.
    const nested = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    assert.equal(parseAnswer(`"model": ${nested}`).model, null);
    const trailing = `"model": ${'{"a":'.repeat(100_000)}1${",}".repeat(100_000)}`;
    assert.equal(parseAnswer(trailing).model, null);
    // Fence openers without a line break, and list lines of many spaces or brackets: the
    // regular expressions backtracked over each (96 KB of ``` took 27 s, a 2 KB line 13 s).
    assert.equal(parseAnswer("```".repeat(100_000)).model, null);
    const spaced = `## Parties\n- alice${" ".repeat(100_000)}x\n- bob: seller\n## Protections\n- bob:${" ".repeat(100_000)}paid`;
    assert.deepEqual(parseAnswer(spaced).parties, ["bob"]);
    assert.equal(parseAnswer(spaced).protections.bob, "paid");
    assert.deepEqual(parseAnswer(`## Rules\n- ${"(".repeat(100_000)}\`\n- ${"a(".repeat(50_000)}b`).rules, []);
    assert.deepEqual(parseAnswer(`## Parties\n- ${"a-".repeat(100_000)}\r`).parties, ["a"]);
    const many = parseAnswer("// guarantee\nrule r { x }\n".repeat(20_000));
    assert.equal(many.rules.length, 20_000);
    assert.equal(many.rules[19_999], "// guarantee\nrule r { x }");
  });
});

describe("braceMatches", () => {
  it("answers for every brace it meets before the first one closes, skipping strings and comments", () => {
    const text = '{ a { "}" b } // }\n { /* } */ } }';
    assert.deepEqual(
      [...braceMatches(text, 0)].sort((x, y) => x[0] - y[0]),
      [
        [0, text.length - 1],
        [4, 12],
        [20, 30],
      ],
    );
    for (const [open, close] of braceMatches(text, 0)) assert.equal(matchingBrace(text, open), close);
    assert.deepEqual(
      [...braceMatches("{ { }", 0)],
      [
        [2, 4],
        [0, -1],
      ],
    );
    assert.deepEqual(
      [...braceMatches("{ { /* }", 0)],
      [
        [0, -1],
        [2, -1],
      ],
    );
  });
});
