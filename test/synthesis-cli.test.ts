import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { EXIT_USAGE, type Io } from "../src/cli/Io.js";
import { main } from "../src/cli/main.js";
import { startCommand } from "../src/cli/startCommand.js";
import { FakeLlmServer, openAiReply } from "./support/FakeLlmServer.js";

const VARS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "HUB_LLM_BASE_URL", "HUB_LLM_MODEL", "HUB_LLM_PROVIDER"] as const;

function capture(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    out: (t: string) => {
      io.stdout += t.endsWith("\n") ? t : `${t}\n`;
    },
    err: (t: string) => {
      io.stderr += t.endsWith("\n") ? t : `${t}\n`;
    },
  };
  return io;
}

describe("contract-hub synthesize", () => {
  // The command reads the process environment: clear any real key so tests never call out.
  const saved: Record<string, string | undefined> = {};
  before(() => {
    for (const v of VARS) {
      saved[v] = process.env[v];
      delete process.env[v];
    }
  });
  after(() => {
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
  });

  it("prints the pattern synthesizer's result as JSON without a key", async () => {
    const io = capture();
    const code = await main(["synthesize", "Alice buys a bike from Bob", "--json"], io);
    assert.equal(code, 0);
    const result = JSON.parse(io.stdout);
    assert.equal(result.source, "patterns");
    assert.deepEqual(result.patterns, ["escrow"]);
    assert.equal(typeof result.confidence, "number");
    assert.deepEqual(result.parties, ["alice", "bob"]);
  });

  it("follows --hint and prints a readable result", async () => {
    const io = capture();
    assert.equal(await main(["synthesize", "Ivan and Judy make a deal", "--hint", "swap"], io), 0);
    assert.match(io.stdout, /^source: patterns \(patterns swap\), confidence 0\.\d+$/m);
    assert.match(io.stdout, /^model swap \{$/m);
  });

  it("exits 1 with UNAVAILABLE for an unrecognised description, and 2 without a description", async () => {
    const io = capture();
    assert.equal(await main(["synthesize", "Write a haiku about the sea", "--json"], io), 1);
    assert.equal(JSON.parse(io.stdout).code, "UNAVAILABLE");
    const plain = capture();
    assert.equal(await main(["synthesize", "Write a haiku about the sea"], plain), 1);
    assert.match(plain.stderr, /\(UNAVAILABLE\)/);
    assert.equal(await main(["synthesize"], capture()), 2);
  });

  it("exits 2 (USAGE) for a blank description, as for a missing one", async () => {
    const io = capture();
    assert.equal(await main(["synthesize", "  ", "--json"], io), EXIT_USAGE);
    assert.equal(JSON.parse(io.stdout).code, "USAGE");
  });

  it("names the --hint flag, not the REST field, in what it prints", async () => {
    const refused = capture();
    assert.equal(await main(["synthesize", "Write a haiku about the sea", "--json"], refused), 1);
    assert.doesNotMatch(JSON.parse(refused.stdout).error, /pattern_hint/);
    const warned = capture();
    assert.equal(await main(["synthesize", "Alice buys a bike from Bob", "--hint", "nonsense", "--json"], warned), 0);
    const warnings = JSON.parse(warned.stdout).warnings as string[];
    assert.ok(warnings.length > 0);
    for (const w of warnings) assert.doesNotMatch(w, /pattern_hint/);
  });

  it("uses the configured language model", async () => {
    const fake = await FakeLlmServer.start();
    try {
      fake.script(
        openAiReply("```modality\nmodel m {\n  initial a\n  a -> b [+GO +signed_by(/users/x.id)]\n  b -> b []\n}\n```"),
      );
      process.env.OPENAI_API_KEY = "sk-cli";
      process.env.HUB_LLM_BASE_URL = `${fake.url}/v1`;
      const io = capture();
      assert.equal(await main(["synthesize", "Some deal", "--json"], io), 0);
      const result = JSON.parse(io.stdout);
      assert.equal(result.source, "llm");
      assert.deepEqual(result.parties, ["x"]);
      assert.equal(fake.requests[0]!.headers.authorization, "Bearer sk-cli");
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.HUB_LLM_BASE_URL;
      await fake.close();
    }
  });
});

describe("contract-hub start with a malformed language-model setting", () => {
  it("refuses to start, naming the variable, instead of answering every synthesis with INTERNAL", async () => {
    for (const [variable, value] of [
      ["HUB_LLM_TIMEOUT_MS", "abc"],
      ["HUB_SYNTHESIS_TIMEOUT_MS", "0"],
      ["HUB_LLM_MAX_TOKENS", "-1"],
      ["HUB_LLM_STRUCTURED", "maybe"],
      ["HUB_SYNTHESIS_QUOTA", "abc"],
    ] as const) {
      const io = capture();
      const env = { OPENAI_API_KEY: "local", [variable]: value };
      const dir = mkdtempSync(join(tmpdir(), "hub-llm-config-"));
      try {
        // A hub that did start stops again at once (stop already resolved), so the test cannot hang.
        const code = await startCommand({ port: "0", rpcPort: "0", dataDir: join(dir, "data") }, io, {
          version: "0.1.0",
          env,
          stop: Promise.resolve(),
        });
        assert.equal(code, EXIT_USAGE, variable);
        assert.match(io.stderr, new RegExp(variable));
        assert.equal(existsSync(join(dir, "data")), false, "refused before the store is opened");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
  it("refuses a provider address holding a user name or password, without repeating it", async () => {
    // fetch refuses such a URL, so the hub would start and then fail every synthesis as unreachable.
    for (const [variable, env] of [
      ["HUB_LLM_BASE_URL", { OPENAI_API_KEY: "local", HUB_LLM_BASE_URL: "http://hub-user:s3cret-pass@127.0.0.1:1/v1" }],
      ["HUB_LLM_BASE_URL", { OPENAI_API_KEY: "local", HUB_LLM_BASE_URL: "https://tok3n-only@llm.example/v1" }],
      [
        "ANTHROPIC_BASE_URL",
        { ANTHROPIC_API_KEY: "local", ANTHROPIC_BASE_URL: "http://hub-user:s3cret-pass@127.0.0.1:1" },
      ],
    ] as const) {
      const io = capture();
      const dir = mkdtempSync(join(tmpdir(), "hub-llm-config-"));
      try {
        const code = await startCommand({ port: "0", rpcPort: "0", dataDir: join(dir, "data") }, io, {
          version: "0.1.0",
          env,
          stop: Promise.resolve(),
        });
        assert.equal(code, EXIT_USAGE, variable);
        assert.match(io.stderr, new RegExp(variable));
        assert.doesNotMatch(io.stderr + io.stdout, /s3cret-pass|hub-user|tok3n-only/);
        assert.equal(existsSync(join(dir, "data")), false, "refused before the store is opened");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
