/**
 * A caller that goes away cancels its synthesis: the provider call under way is aborted (the
 * fake provider sees its connection closed) and no further call is made, instead of the hub
 * paying for calls nobody will read until the deadline. The provider below never answers;
 * each test checks that it was the cancellation (client_aborted), not the deadline
 * (upstream_timeout), that ended the request, and that the cancelled call's quota stays spent.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { WebSocket } from "ws";
import { signRequest, socketAuthParams } from "../src/auth/signRequest.js";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { ContractError } from "../src/contract/ContractError.js";
import { synthesize } from "../src/synthesis/index.js";
import { SynthesisQuota } from "../src/synthesis/SynthesisQuota.js";
import { FakeLlmServer } from "./support/FakeLlmServer.js";
import { type TestApp, testApp } from "./support/testApps.js";

let fake: FakeLlmServer;
before(async () => {
  fake = await FakeLlmServer.start();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.closedHangs = 0;
  fake.script({ hang: true });
});

// The deadline also closes the provider's connection, so each test checks which of the two
// ended the request: the cancellation answers client_aborted, the deadline upstream_timeout.
const DEADLINE_MS = 20_000;
const env = () => ({
  OPENAI_API_KEY: "sk-cancel-test",
  HUB_LLM_BASE_URL: `${fake.url}/v1`,
  HUB_LLM_TIMEOUT_MS: String(10 * DEADLINE_MS),
  HUB_SYNTHESIS_TIMEOUT_MS: String(DEADLINE_MS),
  HUB_LLM_STRUCTURED: "off",
});
const BODY = { description: "Some unusual deal" };

describe("cancelling a synthesis in the library", () => {
  it("aborting the signal closes the provider's connection and rejects with client_aborted", {
    timeout: 5 * DEADLINE_MS,
  }, async () => {
    const controller = new AbortController();
    const outcome = synthesize(BODY, { env: env(), signal: controller.signal });
    await fake.until((f) => f.requests.length === 1);
    controller.abort();
    await assertContractErrorAsync(() => outcome, "INVALID_REQUEST", "client_aborted");
    await fake.until((f) => f.closedHangs === 1);
    assert.equal(fake.requests.length, 1, "no retry after the cancellation");
  });

  it("a signal aborted before the call asks the provider nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    await assertContractErrorAsync(
      () => synthesize(BODY, { env: env(), signal: controller.signal }),
      "INVALID_REQUEST",
      "client_aborted",
    );
    assert.equal(fake.requests.length, 0);
  });
});

/** Records how each synthesis the hub runs ends: the error's reason, or "answered". */
function watchOutcomes(t: TestApp): string[] {
  const outcomes: string[] = [];
  const real = t.hub.synthesize.bind(t.hub);
  t.hub.synthesize = (...args) => {
    const p = real(...args);
    p.then(
      () => outcomes.push("answered"),
      (err: unknown) => outcomes.push(err instanceof ContractError ? String(err.details?.reason) : String(err)),
    );
    return p;
  };
  return outcomes;
}

/** Sends a signed POST over a real connection and returns a function that drops the connection. */
function postAndDrop(t: TestApp, base: string, path: string, body: unknown): () => void {
  const text = JSON.stringify(body);
  const headers = {
    "content-type": "application/json",
    ...signRequest(t.owner.access.seed, { method: "POST", url: path, body: text }),
  };
  const req = request(`${base}${path}`, { method: "POST", headers });
  req.on("error", () => {}); // the drop itself
  req.end(text);
  return () => req.destroy();
}

/** Opens /ws, authenticates as the owner and sends one synthesize request; returns the socket. */
async function socketSynthesis(t: TestApp, base: string): Promise<WebSocket> {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`);
  const frames: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (data) => {
    frames.push(JSON.parse(data.toString()));
    for (const w of waiters.splice(0)) w();
  });
  const next = async (): Promise<Record<string, unknown>> => {
    while (frames.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames.shift()!;
  };
  const hello = (await next()) as { params: { challenge: string } };
  ws.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "authenticate",
      params: socketAuthParams(t.owner.access.seed, hello.params.challenge),
    }),
  );
  const auth = await next();
  assert.ok(auth.result, JSON.stringify(auth));
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "synthesize", params: BODY }));
  return ws;
}

describe("a caller that disconnects cancels its synthesis", () => {
  for (const kind of ["rest", "rpc", "ws"] as const) {
    it(`the provider's connection closes and the request ends client_aborted, not at the deadline (${kind})`, {
      timeout: 5 * DEADLINE_MS,
    }, async () => {
      // One synthesis an hour: the cancelled request spent it.
      const t = await testApp(kind === "rpc" ? "rpc" : "rest", { env: env(), quota: new SynthesisQuota(1) });
      try {
        const outcomes = watchOutcomes(t);
        const base = await t.app.listen({ host: "127.0.0.1", port: 0 });
        let drop: () => void;
        if (kind === "ws") {
          const ws = await socketSynthesis(t, base);
          drop = () => ws.terminate();
        } else if (kind === "rest") {
          drop = postAndDrop(t, base, "/contracts/synthesize", BODY);
        } else {
          drop = postAndDrop(t, base, "/", { jsonrpc: "2.0", id: 1, method: "synthesize", params: BODY });
        }
        await fake.until((f) => f.requests.length === 1);
        assert.deepEqual(outcomes, [], "the provider call is under way");
        drop();
        await fake.until((f) => f.closedHangs === 1);
        // The hub's request settles with the cancellation, long before the deadline could end it.
        while (outcomes.length === 0) await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(outcomes, ["client_aborted"]);
        assert.equal(fake.requests.length, 1, "no retry or repair round after the cancellation");
        // The cancelled call was made, so it counted against the caller's quota.
        if (kind === "rpc") {
          const rpc = await t.signed({
            method: "POST",
            url: "/",
            body: { jsonrpc: "2.0", id: 3, method: "synthesize", params: BODY },
          });
          assert.equal(rpc.json().error.data.details.reason, "synthesis_quota", rpc.body);
        } else {
          const again = await t.signed({ method: "POST", url: "/contracts/synthesize", body: BODY });
          assert.equal(again.statusCode, 429, again.body);
          assert.equal(again.json().details.reason, "synthesis_quota");
        }
        assert.equal(fake.requests.length, 1);
      } finally {
        await t.close();
      }
    });
  }
});
