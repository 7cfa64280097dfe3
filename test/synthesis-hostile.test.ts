/**
 * A language model (or whatever answers at its address) that answers with something built to
 * cost the hub: every such answer gets a bounded amount of work and the documented error,
 * never a held event loop or a result the hub could not create.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { checkCandidate } from "../src/synthesis/checkCandidate.js";
import { providerFromEnv, synthesize } from "../src/synthesis/index.js";
import { anthropicReply, FakeLlmServer, openAiReply } from "./support/FakeLlmServer.js";
import { testApp } from "./support/testApps.js";

let fake: FakeLlmServer;
before(async () => {
  fake = await FakeLlmServer.start();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const env = () => ({
  OPENAI_API_KEY: "sk-hostile-test",
  HUB_LLM_BASE_URL: `${fake.url}/v1`,
  HUB_LLM_TIMEOUT_MS: "5000",
  HUB_LLM_STRUCTURED: "off",
});

/** A chain of `n` steps, each reading a deadline of its own. */
function manyDeadlines(n: number): string {
  const lines = ["model m {", "  initial s0"];
  for (let i = 0; i < n; i++)
    lines.push(`  s${i} -> s${i + 1} [+GO +signed_by(/users/a.id) +after(/t/d${i}.datetime)]`);
  lines.push(`  s${n} -> s${n} []`, "}");
  return lines.join("\n");
}

describe("hostile answers", () => {
  it("a model whose -modifies would pass the model size limit is no usable model (502 invalid_answer), in bounded time", {
    timeout: 60_000,
  }, async () => {
    // 400 steps each reading its own deadline: every step gets -modifies of all 400 paths, a
    // model of several MiB (the hub stores at most 1 MiB). Adding them re-scanned each label
    // for every path: 200 steps took 15 s of one core, 400 more than a minute.
    fake.script(openAiReply(`\`\`\`modality\n${manyDeadlines(400)}\n\`\`\``));
    await assertContractErrorAsync(
      () => synthesize({ description: "Some unusual deal" }, { env: env() }),
      "UPSTREAM_ERROR",
      "invalid_answer",
    );
  });

  it("a model reading a few terms still gets -modifies of each on every step", async () => {
    fake.script(openAiReply(`\`\`\`modality\n${manyDeadlines(3)}\n\`\`\``));
    const r = await synthesize({ description: "Some unusual deal" }, { env: env() });
    const steps = r.model.split("\n").filter((l) => l.includes("+GO"));
    assert.equal(steps.length, 3);
    for (const step of steps) for (const i of [0, 1, 2]) assert.ok(step.includes(`-modifies(/t/d${i}.datetime)`), step);
  });

  it("follows no redirect: the key (x-api-key is no credential fetch drops across origins) stays with the configured host", async () => {
    const other = await FakeLlmServer.start();
    try {
      other.script(
        anthropicReply(
          "```modality\nmodel m {\n  initial a\n  a -> b [+GO +signed_by(/users/x.id)]\n  b -> b []\n}\n```",
        ),
      );
      fake.script({ status: 307, headers: { location: `${other.url}/v1/messages` }, body: {} });
      const anthropic = { ANTHROPIC_API_KEY: "sk-hostile-test", ANTHROPIC_BASE_URL: fake.url };
      const details = await assertContractErrorAsync(
        () => synthesize({ description: "Some unusual deal" }, { env: anthropic }),
        "UPSTREAM_ERROR",
        "upstream_status",
      );
      assert.equal(details.status, 307);
      assert.equal(other.requests.length, 0, "nothing was sent where the redirect pointed");
    } finally {
      await other.close();
    }
  });

  it("never repeats the key, even when the provider's error text echoes it", async () => {
    for (const status of [401, 500]) {
      fake.script({ status, body: { error: { message: "Incorrect API key provided: sk-hostile-test. Check it." } } });
      const details = await assertContractErrorAsync(
        () => synthesize({ description: "Some unusual deal" }, { env: env() }),
        "UPSTREAM_ERROR",
        "upstream_status",
      );
      assert.doesNotMatch(JSON.stringify(details), /sk-hostile-test/);
      let message = "";
      await synthesize({ description: "Some unusual deal" }, { env: env() }).catch((e: Error) => {
        message = e.message;
      });
      assert.match(message, /Incorrect API key provided/);
      assert.doesNotMatch(message, /sk-hostile-test/);
    }
    fake.script({ status: 502, body: "bad gateway: upstream refused Bearer sk-hostile-test" });
    let message = "";
    await synthesize({ description: "Some unusual deal" }, { env: env() }).catch((e: Error) => {
      message = e.message;
    });
    assert.match(message, /HTTP 502/);
    assert.doesNotMatch(message, /sk-hostile-test/);
  });
});

/** A signed cycle of `n` states and `k` fixed-point rules over it, each costing about n² visits. */
function costlyAnswer(n: number, k: number): string {
  const lines = ["model cycle {", "  initial s0"];
  for (let i = 0; i < n; i++) lines.push(`  s${i} -> s${(i + 1) % n} [+A +signed_by(/users/a.id)]`);
  lines.push("}");
  const rules = Array.from({ length: k }, (_, i) => `gfp(X, lfp(Y, (s${(i * 37) % n} & <+A>X) | <+A>Y))`);
  return ["## Model", "```modality", ...lines, "```", "## Rules", ...rules.map((r) => `- ${r}`)].join("\n");
}

describe("what the checker says about an answer stays small", () => {
  it("a long counterexample and many failing rules: a short repair message and short warnings", async () => {
    // A chain of 5,000 states and 40 rules that fail only at its end: each counterexample path
    // named every state, so the repair message and the warnings grew with states × rules
    // (a 1 MiB model and a few hundred rules made hundreds of megabytes).
    const lines = ["model chain {", "  initial s0"];
    for (let i = 0; i < 5000; i++) lines.push(`  s${i} -> s${i + 1} [+A +signed_by(/users/a.id)]`);
    lines.push("  s5000 -> s5000 []", "}");
    const rules = Array.from({ length: 40 }, (_, i) => `- always(!s5000 | s${i})`);
    fake.script(openAiReply(["## Model", "```modality", ...lines, "```", "## Rules", ...rules].join("\n")));
    const r = await synthesize({ description: "Some unusual deal" }, { env: env() });
    assert.equal(fake.requests.length, 2, "one repair round");
    const repair = fake.requests[1]!.body.messages.at(-1).content as string;
    assert.match(repair, /rule 1: does not hold/);
    assert.ok(repair.length < 16_384, `repair message of ${repair.length} characters`);
    const dropped = r.warnings.filter((w) => w.startsWith("dropped rule"));
    assert.equal(dropped.length, 40);
    for (const w of dropped) assert.ok(w.length < 1024, `a warning of ${w.length} characters`);
  });
});

describe("the checks of an answer are the caller's expensive work", () => {
  it("share one budget of visits per request: rules past it are not checked, and say so", () => {
    const answer = costlyAnswer(300, 6);
    const model = answer.slice(answer.indexOf("model cycle"), answer.indexOf("}") + 1);
    const rules = Array.from({ length: 6 }, (_, i) => `gfp(X, lfp(Y, (s${(i * 37) % 300} & <+A>X) | <+A>Y))`);
    const alone = checkCandidate(model, rules.slice(0, 1));
    assert.equal(alone.rules[0]!.error, undefined);
    const check = checkCandidate(model, rules, alone.visits * 2.5);
    assert.deepEqual(
      check.rules.map((r) => r.error === undefined),
      [true, true, false, false, false, false],
    );
    assert.match(check.rules[5]!.error!, /budget/);
    assert.ok(check.visits < alone.visits * 3, "the spending stops at the budget");
  });

  for (const kind of ["rest", "rpc"] as const) {
    it(`are charged to the caller's work budget, which refuses the next request before the provider is asked (${kind})`, async () => {
      const t = await testApp(kind, { env: env(), workBudgetMs: 1 });
      const call = () =>
        kind === "rest"
          ? t.signed({ method: "POST", url: "/contracts/synthesize", body: { description: "Some unusual deal" } })
          : t.signed({
              method: "POST",
              url: "/",
              body: { jsonrpc: "2.0", id: 1, method: "synthesize", params: { description: "Some unusual deal" } },
            });
      try {
        fake.script(openAiReply(costlyAnswer(1000, 3)));
        const first = await call();
        assert.equal(first.statusCode, 200, first.body);
        const result = kind === "rest" ? first.json() : first.json().result;
        assert.equal(result.source, "llm");
        assert.equal(fake.requests.length, 1);
        const second = await call();
        if (kind === "rest") {
          assert.equal(second.statusCode, 429, second.body);
          assert.equal(second.json().details.reason, "work_budget");
        } else {
          assert.equal(second.json().error.data.code, "RATE_LIMITED", second.body);
          assert.equal(second.json().error.data.details.reason, "work_budget");
        }
        assert.equal(fake.requests.length, 1, "the provider is not asked for a refused request");
      } finally {
        await t.close();
      }
    });
  }
});

describe("the provider's settings", () => {
  it("refuses a timeout a timer cannot hold (over 2^31 - 1 ms), which Node would shorten to 1 ms", async () => {
    const details = await assertContractErrorAsync(
      async () => providerFromEnv({ OPENAI_API_KEY: "k", HUB_LLM_TIMEOUT_MS: "3000000000" }),
      "INTERNAL",
      "bad_config",
    );
    assert.equal(details.variable, "HUB_LLM_TIMEOUT_MS");
    assert.notEqual(providerFromEnv({ OPENAI_API_KEY: "k", HUB_LLM_TIMEOUT_MS: "2147483647" }), null);
  });
});
