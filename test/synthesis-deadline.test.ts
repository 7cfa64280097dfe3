/**
 * One synthesis request has one deadline (HUB_SYNTHESIS_TIMEOUT_MS, default twice
 * HUB_LLM_TIMEOUT_MS) over every provider call, retry and repair round together. Each
 * provider below is a real HTTP server on loopback that never answers, answers 503 or a
 * refusal, or answers garbage; the per-call timeout is kept far above the deadline, so only
 * the deadline can end these requests with `details.deadline_ms`.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { ContractError } from "../src/contract/ContractError.js";
import { AnthropicProvider, OpenAiProvider, providerFromEnv, synthesize } from "../src/synthesis/index.js";
import { FakeLlmServer, openAiReply } from "./support/FakeLlmServer.js";
import { testApp } from "./support/testApps.js";

let fake: FakeLlmServer;
before(async () => {
  fake = await FakeLlmServer.start();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const PER_CALL_MS = 10_000;
const openAi = (deadlineMs: number, extra: Record<string, string> = {}) => ({
  OPENAI_API_KEY: "sk-deadline-test",
  HUB_LLM_BASE_URL: `${fake.url}/v1`,
  HUB_LLM_TIMEOUT_MS: String(PER_CALL_MS),
  HUB_SYNTHESIS_TIMEOUT_MS: String(deadlineMs),
  HUB_LLM_STRUCTURED: "off",
  ...extra,
});
const anthropic = (deadlineMs: number) => ({
  ANTHROPIC_API_KEY: "sk-deadline-test",
  ANTHROPIC_BASE_URL: fake.url,
  HUB_LLM_TIMEOUT_MS: String(PER_CALL_MS),
  HUB_SYNTHESIS_TIMEOUT_MS: String(deadlineMs),
});
const CONFIG = { apiKey: "k", model: "m", timeoutMs: PER_CALL_MS, maxTokens: 100 };
// Recognised by no pattern, so an unusable answer is 502 rather than the pattern fallback.
const BODY = { description: "Some unusual deal" };

describe("one deadline for the whole synthesis request", () => {
  for (const [name, env] of [
    ["openai", openAi],
    ["anthropic", anthropic],
  ] as const) {
    it(`a provider that never answers is cut at the deadline, not at its longer per-call timeout (${name})`, {
      timeout: 30_000,
    }, async () => {
      fake.script({ hang: true });
      const details = await assertContractErrorAsync(
        () => synthesize(BODY, { env: env(200) }),
        "UPSTREAM_ERROR",
        "upstream_timeout",
      );
      assert.equal(details.deadline_ms, 200);
      assert.equal(details.timeout_ms, PER_CALL_MS);
      assert.equal(fake.requests.length, 1);
    });
  }

  it("a repair round that never answers ends at the same deadline", { timeout: 30_000 }, async () => {
    // The first answer is garbage, so the hub asks again with the problems; that call hangs.
    fake.script(openAiReply("I would rather not write a contract."), { hang: true });
    const details = await assertContractErrorAsync(
      () => synthesize(BODY, { env: openAi(2000) }),
      "UPSTREAM_ERROR",
      "upstream_timeout",
    );
    assert.equal(details.deadline_ms, 2000);
    assert.equal(fake.requests.length, 2, "the answer and its repair round");
    assert.match(JSON.stringify(fake.requests[1]!.body.messages.at(-1)), /found these problems/);
  });

  it("no retry is started when its pause would reach the deadline: the provider's own failure is the answer", async () => {
    // A 503 is retried after 250 ms; a deadline of 200 ms leaves no time for it.
    fake.script({ status: 503, body: { error: { message: "overloaded" } } });
    const details = await assertContractErrorAsync(
      () => synthesize(BODY, { env: openAi(200) }),
      "UPSTREAM_ERROR",
      "upstream_status",
    );
    assert.equal(details.status, 503);
    assert.equal(fake.requests.length, 1);
    // With time for it, the same failure is retried once (as before the deadline).
    fake.requests.length = 0;
    await assertContractErrorAsync(() => synthesize(BODY, { env: openAi(5000) }), "UPSTREAM_ERROR", "upstream_status");
    assert.equal(fake.requests.length, 2);
  });

  it("the re-send after a refused response_format is under the same deadline", { timeout: 30_000 }, async () => {
    fake.script({ status: 400, body: { error: { message: "response_format is not supported" } } }, { hang: true });
    const details = await assertContractErrorAsync(
      () => synthesize(BODY, { env: openAi(2000, { HUB_LLM_STRUCTURED: "auto" }) }),
      "UPSTREAM_ERROR",
      "upstream_timeout",
    );
    assert.equal(details.deadline_ms, 2000);
    assert.equal(fake.requests.length, 2);
    assert.ok(fake.requests[0]!.body.response_format);
    assert.equal(fake.requests[1]!.body.response_format, undefined);
  });

  for (const kind of ["rest", "rpc"] as const) {
    it(`the hub answers 502 upstream_timeout at the deadline and the request ends (${kind})`, {
      timeout: 30_000,
    }, async () => {
      const t = await testApp(kind, { env: openAi(200) });
      try {
        fake.script({ hang: true });
        const res =
          kind === "rest"
            ? await t.signed({ method: "POST", url: "/contracts/synthesize", body: BODY })
            : await t.signed({
                method: "POST",
                url: "/",
                body: { jsonrpc: "2.0", id: 1, method: "synthesize", params: BODY },
              });
        if (kind === "rest") {
          assert.equal(res.statusCode, 502, res.body);
          assert.equal(res.json().code, "UPSTREAM_ERROR");
          assert.equal(res.json().details.reason, "upstream_timeout");
          assert.equal(res.json().details.deadline_ms, 200);
        } else {
          assert.equal(res.json().error.data.code, "UPSTREAM_ERROR", res.body);
          assert.equal(res.json().error.data.details.reason, "upstream_timeout");
          assert.equal(res.json().error.data.details.deadline_ms, 200);
        }
        assert.equal(fake.requests.length, 1);
      } finally {
        await t.close();
      }
    });
  }
});

describe("the deadline's setting", () => {
  it("defaults to twice HUB_LLM_TIMEOUT_MS (an answer and its repair round)", () => {
    assert.equal(providerFromEnv({ OPENAI_API_KEY: "k", HUB_LLM_TIMEOUT_MS: "300" })?.deadlineMs, 600);
    assert.equal(providerFromEnv({ ANTHROPIC_API_KEY: "k" })?.deadlineMs, 120_000);
    const set = { OPENAI_API_KEY: "k", HUB_LLM_TIMEOUT_MS: "300", HUB_SYNTHESIS_TIMEOUT_MS: "450" };
    assert.equal(providerFromEnv(set)?.deadlineMs, 450);
  });

  it("refuses a value that is not a positive integer a timer can hold", async () => {
    for (const raw of ["0", "-5", "abc", "1.5", "3000000000"]) {
      const details = await assertContractErrorAsync(
        async () => providerFromEnv({ OPENAI_API_KEY: "k", HUB_SYNTHESIS_TIMEOUT_MS: raw }),
        "INTERNAL",
        "bad_config",
      );
      assert.equal(details.variable, "HUB_SYNTHESIS_TIMEOUT_MS", raw);
    }
  });
});

describe("credentials in a provider's address", () => {
  it("providerFromEnv refuses them (bad_config naming the variable), without repeating them", async () => {
    const base = fake.url.replace("http://", "http://hub-user:s3cret-pass@");
    for (const [variable, env] of [
      ["HUB_LLM_BASE_URL", { OPENAI_API_KEY: "k", HUB_LLM_BASE_URL: `${base}/v1` }],
      ["ANTHROPIC_BASE_URL", { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: base }],
    ] as const) {
      let thrown: unknown;
      try {
        providerFromEnv(env);
      } catch (err) {
        thrown = err;
      }
      assert.ok(thrown instanceof ContractError, String(thrown));
      assert.deepEqual(thrown.details, { reason: "bad_config", variable });
      assert.doesNotMatch(thrown.message, /s3cret-pass|hub-user/);
    }
  });

  // A provider an embedder builds itself is not checked that way: its errors still hide them.
  for (const [name, make] of [
    ["openai", (base: string) => new OpenAiProvider({ ...CONFIG, baseUrl: `${base}/v1`, structured: "off" })],
    ["anthropic", (base: string) => new AnthropicProvider({ ...CONFIG, baseUrl: base })],
  ] as const) {
    it(`a user:password@ in the base URL never appears in the error (${name})`, async () => {
      const base = fake.url.replace("http://", "http://hub-user:s3cret-pass@");
      let thrown: unknown;
      await synthesize(BODY, { provider: make(base) }).catch((e: unknown) => {
        thrown = e;
      });
      assert.ok(thrown instanceof ContractError, String(thrown));
      assert.equal(thrown.details?.reason, "upstream_unreachable");
      const said = `${thrown.message} ${JSON.stringify(thrown.details)}`;
      assert.doesNotMatch(said, /s3cret-pass|hub-user/);
      assert.match(said, /127\.0\.0\.1/, "the host is still named");
      assert.equal(fake.requests.length, 0);
    });
  }
});
