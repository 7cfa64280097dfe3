import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { checkAtInitial } from "../src/lang/check.js";
import { compileModel } from "../src/lang/Lts.js";
import { parseModel, parseRule } from "../src/lang/parser.js";
import { synthesize } from "../src/synthesis/index.js";
import { anthropicReply, FakeLlmServer, openAiReply } from "./support/FakeLlmServer.js";

const MODEL = `model sale {
  initial init
  init -> paid [+PAY +signed_by(/users/alice.id)]
  paid -> shipped [+SHIP +signed_by(/users/bob.id)]
  shipped -> done [+CONFIRM +signed_by(/users/alice.id)]
  done -> done []
}`;
const GOOD_RULE = `export default rule {
  starting_at $PARENT
  formula { always(!done -> [-signed_by(/users/alice.id)] !done) }
}`;
// Potentialist matching: PAY and SHIP do not mention CONFIRM, so they match [+CONFIRM] and this is false.
const BAD_RULE = "export default rule { formula { [+CONFIRM] false } }";

function answer(rules: string[]): string {
  return [
    "Here is the contract.",
    "## Model",
    "```modality",
    MODEL,
    "```",
    "## Rules",
    ...rules.map((r) => `\`\`\`modality\n${r}\n\`\`\``),
    "## Parties",
    "- alice: buyer",
    "- bob: seller",
    "## Protections",
    "- **Alice**: only she confirms delivery",
    "- **Bob**: paid before shipping",
  ].join("\n");
}

let fake: FakeLlmServer;
before(async () => {
  fake = await FakeLlmServer.start();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const anthropicEnv = () => ({
  ANTHROPIC_API_KEY: "sk-test-anthropic",
  ANTHROPIC_BASE_URL: fake.url,
  HUB_LLM_MODEL: "test-model",
  HUB_LLM_TIMEOUT_MS: "2000",
});
const openAiEnv = () => ({
  OPENAI_API_KEY: "sk-test-openai",
  HUB_LLM_BASE_URL: `${fake.url}/v1`,
  HUB_LLM_TIMEOUT_MS: "2000",
});

function assertHolds(model: string, rules: string[]): void {
  const lts = compileModel(parseModel(model));
  for (const r of rules) assert.ok(checkAtInitial(lts, parseRule(r).formula).holds, r);
}

describe("synthesis through the Anthropic Messages API", () => {
  it("sends the documented request and returns the checked answer", async () => {
    fake.script(anthropicReply(answer([GOOD_RULE])));
    const result = await synthesize(
      { description: "Alice buys from Bob", pattern_hint: "escrow" },
      { env: anthropicEnv() },
    );
    assert.equal(fake.requests.length, 1);
    const req = fake.requests[0]!;
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/v1/messages");
    assert.equal(req.headers["x-api-key"], "sk-test-anthropic");
    assert.equal(req.headers["anthropic-version"], "2023-06-01");
    assert.equal(req.body.model, "test-model");
    assert.equal(typeof req.body.max_tokens, "number");
    assert.match(req.body.system, /Label matching/);
    assert.equal(req.body.messages.length, 1);
    assert.match(req.body.messages[0].content, /Alice buys from Bob/);
    assert.match(req.body.messages[0].content, /Pattern hint: escrow/);
    assert.equal(result.source, "llm");
    assert.equal(result.model, MODEL);
    assert.deepEqual(result.rules, [GOOD_RULE]);
    assert.deepEqual(result.parties, ["alice", "bob"]);
    assert.deepEqual(Object.keys(result.protections), ["alice", "bob"]);
    assert.ok(result.prompt.includes(req.body.system));
    assertHolds(result.model, result.rules);
  });

  it("retries once after a 500 and succeeds", async () => {
    fake.script({ status: 500, body: { error: { message: "overloaded" } } }, anthropicReply(answer([GOOD_RULE])));
    const result = await synthesize({ description: "Alice buys from Bob" }, { env: anthropicEnv() });
    assert.equal(fake.requests.length, 2);
    assert.equal(result.source, "llm");
  });

  it("gives up with UPSTREAM_ERROR after a second 5xx, and does not retry a 401", async () => {
    fake.script({ status: 503, body: "down" });
    const d1 = await assertContractErrorAsync(
      () => synthesize({ description: "Alice buys from Bob" }, { env: anthropicEnv() }),
      "UPSTREAM_ERROR",
      "upstream_status",
    );
    assert.equal(d1.status, 503);
    assert.equal(fake.requests.length, 2);
    fake.requests.length = 0;
    fake.script({ status: 401, body: { error: { message: "invalid x-api-key" } } });
    const d2 = await assertContractErrorAsync(
      () => synthesize({ description: "Alice buys from Bob" }, { env: anthropicEnv() }),
      "UPSTREAM_ERROR",
      "upstream_status",
    );
    assert.equal(d2.status, 401);
    assert.equal(fake.requests.length, 1);
  });

  it("times out a provider that never answers (502, no retry)", async () => {
    fake.script({ hang: true });
    const details = await assertContractErrorAsync(
      () =>
        synthesize({ description: "Alice buys from Bob" }, { env: { ...anthropicEnv(), HUB_LLM_TIMEOUT_MS: "150" } }),
      "UPSTREAM_ERROR",
      "upstream_timeout",
    );
    assert.equal(details.timeout_ms, 150);
    assert.equal(fake.requests.length, 1);
  });

  it("reports an unreachable provider as UPSTREAM_ERROR", async () => {
    const closed = await FakeLlmServer.start();
    const url = closed.url;
    await closed.close();
    await assertContractErrorAsync(
      () => synthesize({ description: "x" }, { env: { ...anthropicEnv(), ANTHROPIC_BASE_URL: url } }),
      "UPSTREAM_ERROR",
      "upstream_unreachable",
    );
  });

  it("runs a repair round that carries the checker's errors, and keeps the fixed rule", async () => {
    fake.script(anthropicReply(answer([BAD_RULE])), anthropicReply(answer([GOOD_RULE])));
    const result = await synthesize({ description: "Alice buys from Bob" }, { env: anthropicEnv() });
    assert.equal(fake.requests.length, 2);
    const repair = fake.requests[1]!.body.messages as Array<{ role: string; content: string }>;
    assert.deepEqual(
      repair.map((m) => m.role),
      ["user", "assistant", "user"],
    );
    assert.ok(repair[1]!.content.includes(BAD_RULE));
    assert.match(repair[2]!.content, /rule 1: does not hold at the initial state "init"/);
    assert.ok(repair[2]!.content.includes(BAD_RULE));
    assert.deepEqual(result.rules, [GOOD_RULE]);
    assert.equal(
      result.warnings.some((w) => w.startsWith("dropped rule")),
      false,
    );
  });

  it("drops a rule that still fails after the repair round, with a warning", async () => {
    fake.script(anthropicReply(answer([GOOD_RULE, BAD_RULE])));
    const result = await synthesize({ description: "Alice buys from Bob" }, { env: anthropicEnv() });
    assert.equal(fake.requests.length, 2);
    assert.deepEqual(result.rules, [GOOD_RULE]);
    assert.equal(result.warnings.filter((w) => w.startsWith("dropped rule 2")).length, 1);
    assertHolds(result.model, result.rules);
  });
});

describe("synthesis through an OpenAI-compatible endpoint", () => {
  it("posts to HUB_LLM_BASE_URL + /chat/completions with a bearer key and reads a JSON answer", async () => {
    const json = JSON.stringify({
      model: MODEL,
      rules: ["always(!done -> [-signed_by(/users/alice.id)] !done)"],
      parties: ["alice", "bob"],
      protections: { alice: "only she confirms" },
    });
    fake.script(openAiReply(`Sure! Here it is:\n\`\`\`json\n${json}\n\`\`\`\nGood luck.`));
    const result = await synthesize({ description: "Alice buys from Bob" }, { env: openAiEnv() });
    const req = fake.requests[0]!;
    assert.equal(req.path, "/v1/chat/completions");
    assert.equal(req.headers.authorization, "Bearer sk-test-openai");
    assert.equal(req.body.model, "gpt-4o-mini");
    assert.equal(req.body.messages[0].role, "system");
    assert.equal(req.body.messages[1].role, "user");
    assert.equal(result.source, "llm");
    assert.equal(result.rules.length, 1);
    assert.match(result.rules[0]!, /^export default rule \{/);
    assertHolds(result.model, result.rules);
  });

  it("never returns a model that fails to parse: a malformed answer twice is UPSTREAM_ERROR", async () => {
    fake.script(openAiReply("I think the contract should be fair to everyone. model broken { init -> }"));
    const details = await assertContractErrorAsync(
      () => synthesize({ description: "Write a haiku about the sea" }, { env: openAiEnv() }),
      "UPSTREAM_ERROR",
      "invalid_answer",
    );
    assert.equal(fake.requests.length, 2);
    assert.equal((details.errors as unknown[]).length, 1);
  });

  it("falls back to the pattern synthesizer when the answer is malformed but the description is recognised", async () => {
    fake.script(openAiReply("no contract here"));
    const result = await synthesize({ description: "Alice buys a bike from Bob" }, { env: openAiEnv() });
    assert.equal(fake.requests.length, 2);
    assert.equal(result.source, "patterns");
    assert.deepEqual(result.parties, ["alice", "bob"]);
    assertHolds(result.model, result.rules);
  });

  it("asks for schema-constrained JSON and reads the constrained answer", async () => {
    const json = JSON.stringify({
      model: MODEL,
      rules: [GOOD_RULE],
      parties: ["alice", "bob"],
      protections: [
        { party: "alice", protection: "only she confirms" },
        { party: "bob", protection: "paid before shipping" },
      ],
    });
    fake.script(openAiReply(json));
    const result = await synthesize({ description: "Alice buys from Bob" }, { env: openAiEnv() });
    const format = fake.requests[0]!.body.response_format;
    assert.equal(format.type, "json_schema");
    assert.equal(format.json_schema.strict, true);
    assert.deepEqual(format.json_schema.schema.required, ["model", "rules", "parties", "protections"]);
    assert.equal(result.source, "llm");
    assert.deepEqual(result.parties, ["alice", "bob"]);
    assert.deepEqual(Object.keys(result.protections), ["alice", "bob"]);
    assert.equal(result.rules.length, 1);
    assert.ok(result.confidence > 0 && result.confidence <= 1);
    assert.deepEqual(result.patterns, []);
  });

  it("falls back to a plain request when the server refuses response_format, and stops asking", async () => {
    fake.script(
      { status: 400, body: { error: { message: "response_format json_schema is not supported" } } },
      openAiReply(answer([GOOD_RULE])),
    );
    const env = openAiEnv();
    const result = await synthesize({ description: "Alice buys from Bob" }, { env });
    assert.equal(fake.requests.length, 2);
    assert.ok(fake.requests[0]!.body.response_format);
    assert.equal(fake.requests[1]!.body.response_format, undefined);
    assert.equal(result.source, "llm");
    assertHolds(result.model, result.rules);
  });

  it("HUB_LLM_STRUCTURED=off never asks for a schema; =on reports the refusal", async () => {
    fake.script(openAiReply(answer([GOOD_RULE])));
    await synthesize({ description: "Alice buys from Bob" }, { env: { ...openAiEnv(), HUB_LLM_STRUCTURED: "off" } });
    assert.equal(fake.requests[0]!.body.response_format, undefined);
    fake.requests.length = 0;
    fake.script({ status: 400, body: { error: { message: "unsupported response_format" } } });
    const d = await assertContractErrorAsync(
      () => synthesize({ description: "Alice buys from Bob" }, { env: { ...openAiEnv(), HUB_LLM_STRUCTURED: "on" } }),
      "UPSTREAM_ERROR",
      "upstream_status",
    );
    assert.equal(d.status, 400);
    assert.equal(fake.requests.length, 1);
  });

  it("stops reading a response body over 4 MiB: UPSTREAM_ERROR upstream_too_large, no retry", async () => {
    // As a chunked body (no Content-Length), so the cap is met while reading, not from the header.
    fake.script({ body: openAiReply("x".repeat(5 * 1024 * 1024)).body, headers: { "transfer-encoding": "chunked" } });
    const details = await assertContractErrorAsync(
      () => synthesize({ description: "Alice buys from Bob" }, { env: openAiEnv() }),
      "UPSTREAM_ERROR",
      "upstream_too_large",
    );
    assert.equal(details.max_bytes, 4 * 1024 * 1024);
    assert.equal(fake.requests.length, 1);
  });

  it("reports an answer without content as UPSTREAM_ERROR", async () => {
    fake.script({ body: { choices: [] } });
    await assertContractErrorAsync(
      () => synthesize({ description: "Alice buys from Bob" }, { env: openAiEnv() }),
      "UPSTREAM_ERROR",
      "upstream_bad_response",
    );
  });
});

describe("synthesis without a key and request validation", () => {
  it("answers from patterns without a key, and UNAVAILABLE naming both variables when unrecognised", async () => {
    const result = await synthesize({ description: "Alice buys a bike from Bob" }, { env: {} });
    assert.equal(result.source, "patterns");
    const details = await assertContractErrorAsync(
      () => synthesize({ description: "Write a haiku about the sea" }, { env: {} }),
      "UNAVAILABLE",
      "no_language_model",
    );
    assert.deepEqual(details.env, ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]);
    const closest = details.closest as Array<{ pattern: string; score: number; summary: string }>;
    assert.equal(closest.length, 3);
    for (const c of closest) assert.equal(typeof c.summary, "string");
    assert.equal(details.unknown_hint, undefined);
  });

  it("names a pattern_hint that names no pattern when nothing else fits either", async () => {
    const body = { description: "Write a haiku about the sea", pattern_hint: "sonnet" };
    const details = await assertContractErrorAsync(
      () => synthesize(body, { env: {} }),
      "UNAVAILABLE",
      "no_language_model",
    );
    assert.equal(details.unknown_hint, "sonnet");
    assert.equal((details.closest as unknown[]).length, 3);
  });

  it("refuses a missing description or a malformed hint with INVALID_REQUEST naming the field", async () => {
    for (const [body, field] of [
      [{}, "description"],
      [{ description: "  " }, "description"],
      [{ description: "escrow", pattern_hint: 7 }, "pattern_hint"],
      [[], "body"],
    ] as const) {
      const d = await assertContractErrorAsync(() => synthesize(body, { env: {} }), "INVALID_REQUEST", "invalid_field");
      assert.equal(d.field, field);
    }
  });
});
