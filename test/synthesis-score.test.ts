import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { scoreAll } from "../bench/synthesis/score.js";
import { scoreCase } from "../bench/synthesis/scoreCase.js";
import type { LlmPrompt, LlmProvider } from "../src/synthesis/index.js";
import { patternSynthesize } from "../src/synthesis/index.js";

/** Measured on bench/synthesis/cases.json (docs/synthesis.md): a quality floor, not a target. */
const PATTERN_FLOOR = 19;

/** A provider that answers in the prompt's format with what the pattern synthesizer would say. */
const echoProvider: LlmProvider = {
  name: "echo",
  model: "patterns",
  async complete(prompt: LlmPrompt) {
    const user = prompt.messages[0]!.content;
    const description = /this description:\n\n([\s\S]*?)(?:\n\nPattern hint: (\w+)|\n\nAnswer in)/.exec(user)!;
    const r = patternSynthesize(description[1]!, description[2]);
    if (r === null) return "I cannot write that contract.";
    return [
      "## Model",
      "```modality",
      r.model,
      "```",
      "## Rules",
      ...r.rules.map((x) => `\`\`\`modality\n${x}\n\`\`\``),
      "## Parties",
      ...r.parties.map((p) => `- ${p}: party`),
      "## Protections",
      ...Object.entries(r.protections).map(([p, t]) => `- **${p}**: ${t}`),
    ].join("\n");
  },
};

describe("synthesis evaluation", () => {
  it(`the pattern synthesizer scores at least ${PATTERN_FLOOR}/20`, async () => {
    const score = await scoreAll({ provider: null });
    assert.equal(score.total, 20);
    assert.ok(score.passed >= PATTERN_FLOOR, JSON.stringify(score.cases.filter((c) => !c.pass)));
  });

  it("scores a provider through the language-model path the same way", async () => {
    const score = await scoreAll({ provider: echoProvider });
    assert.ok(score.passed >= PATTERN_FLOOR, JSON.stringify(score.cases.filter((c) => !c.pass)));
    assert.ok(score.cases.filter((c) => c.pass).every((c) => c.source === "llm"));
  });

  it("fails a result that lacks the expected properties", () => {
    const escrow = patternSynthesize("Alice buys a bike from Bob")!;
    assert.deepEqual(
      scoreCase({ parties_include: ["alice"], signed_actions: [{ action: "RELEASE", by: "alice" }] }, escrow),
      [],
    );
    const failures = scoreCase(
      {
        parties_include: ["carol"],
        threshold: 2,
        signed_actions: [{ action: "RELEASE", by: "bob" }],
        formulas: ["always(init)"],
        min_rules: 99,
      },
      escrow,
    );
    assert.equal(failures.length, 5);
  });
});
