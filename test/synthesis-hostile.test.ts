/**
 * A language model (or whatever answers at its address) that answers with something built to
 * cost the hub: every such answer gets a bounded amount of work and the documented error,
 * never a held event loop or a result the hub could not create.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { synthesize } from "../src/synthesis/index.js";
import { FakeLlmServer, openAiReply } from "./support/FakeLlmServer.js";

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
