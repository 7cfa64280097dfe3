/**
 * Hostile load, attack 6 (docs/security.md, one meaning per body): against real hub processes
 * on SQLite and on PostgreSQL, bodies with a duplicate member name — the attack's own
 * `"value":"a","value":"b"` inside a pushed commit, then one planted in every object of each
 * route's body, half of them spelled with a unicode escape — are refused on REST (400
 * `duplicate_key`), JSON-RPC (-32700 with `data.details.reason: "duplicate_key"`) and /ws
 * frames, and nothing is stored. The long form plants more (random extra values, more bodies).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import WebSocket from "ws";
import { registrationBody, signRequest } from "../../src/auth/signRequest.js";
import { buildWireCommit } from "../../src/contract/buildWireCommit.js";
import { generateKeyPair } from "../../src/contract/keys.js";
import { objectCount, withDuplicate } from "../support/duplicateJson.js";
import { type HubProcess, killAllHubs, startHub } from "../support/hubProcess.js";
import { testDatabase } from "../support/pg.js";
import { Party } from "./support/party.js";
import { harnessSeed, LONG, Rng } from "./support/seeded.js";

const rng = new Rng(harnessSeed("hostile-load-duplicate-keys"));
const base = mkdtempSync(join(tmpdir(), "hostile-dup-"));
const db = await testDatabase();
const figures: Record<string, unknown> = {};
const EXTRAS: unknown[] = ["b", 0, null, true, { nested: [1] }, "x".repeat(64)];
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
  console.log(`[hostile-load-duplicate-keys] figures ${JSON.stringify(figures)}`);
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function postText(url: string, path: string, text: string, seed: Uint8Array): Promise<Answer> {
  const headers = {
    "content-type": "application/json",
    ...signRequest(seed, { method: "POST", url: path, body: text }),
  };
  const res = await fetch(url + path, { method: "POST", headers, body: text });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Opens /ws and resolves once the hello arrived; `next()` is the following message. */
async function socket(url: string): Promise<{ send(text: string): Promise<Record<string, unknown>>; close(): void }> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
  const inbox: Record<string, unknown>[] = [];
  let wake: (() => void) | null = null;
  ws.on("message", (data) => {
    inbox.push(JSON.parse(data.toString()) as Record<string, unknown>);
    wake?.();
  });
  const next = async () => {
    while (inbox.length === 0) await new Promise<void>((r) => (wake = r));
    return inbox.shift()!;
  };
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const hello = await next();
  assert.equal(hello.method, "hello");
  return {
    send: async (text) => {
      ws.send(text);
      return next();
    },
    close: () => ws.close(),
  };
}

function assertRpcDuplicate(answer: unknown, what: string): void {
  const error = (answer as { error?: { code: number; data?: { code?: string; details?: { reason?: string } } } }).error;
  assert.equal(error?.code, -32700, `${what}: ${JSON.stringify(answer)}`);
  assert.equal(error?.data?.code, "INVALID_REQUEST", what);
  assert.equal(error?.data?.details?.reason, "duplicate_key", what);
}

async function attack(store: "sqlite" | "postgres"): Promise<void> {
  const args = store === "postgres" ? ["--database-url", db.url] : [];
  const hub: HubProcess = await startHub(join(base, store), args);
  const owner = new Party(rng);
  await owner.register(hub.url);
  const client = owner.client(hub.url);
  await client.push("c", [owner.genesis("c")]);
  const { head } = await client.getState("c");
  const before = JSON.stringify(await client.listContracts());
  const counts = { rest: 0, rpc: 0, ws: 0 };

  // The attack as reported: a signer's parser keeps "a", JSON.parse would keep "b".
  const commit = buildWireCommit("c", head, [{ method: "post", path: "/notes/x.text", value: "a" }]);
  for (const second of ['"value":"b"', '"\\u0076alue":"b"']) {
    const text = JSON.stringify({ commits: [commit] }).replace('"value":"a"', `"value":"a",${second}`);
    const answer = await postText(hub.url, "/contracts/c/push", text, owner.accessSeed);
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal((answer.body.details as { reason?: string }).reason, "duplicate_key");
    counts.rest++;
  }

  const [next] = owner.chain("c", head, 1, "dup");
  const bodies: [string, string, unknown][] = [
    ["/contracts/c/push", "push", { contract_id: "c", commits: [next] }],
    ["/contracts", "createContract", { model: null, rules: [], readers: [owner.key] }],
    ["/contracts/c/grant", "grant", { contract_id: "c", identity: owner.identity, role: "reader" }],
    ["/register", "register", registrationBody(generateKeyPair().seed, generateKeyPair().seed)],
    ["/contracts/c/commits", "submitCommit", { contract_id: "c", method: "post", path: "/a.text", value: "v" }],
  ];
  const ws = await socket(hub.rpcUrl);
  const rounds = LONG ? 20 : 1;
  for (const [path, method, body] of bodies) {
    for (let round = 0; round < rounds; round++) {
      for (let target = 0; target < objectCount(body); target++) {
        const plant = {
          escape: (target + round) % 2 === 1,
          extra: EXTRAS[rng.int(0, EXTRAS.length - 1)],
          pick: rng.int(0, 7),
        };
        const rest = withDuplicate(body, target, plant);
        const answer = await postText(hub.url, path, rest.text, owner.accessSeed);
        assert.equal(answer.status, 400, `${path} ${rest.text.slice(0, 200)}: ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body.details as { reason?: string }).reason, "duplicate_key", rest.text.slice(0, 200));
        counts.rest++;

        // The same object inside params (the request itself is object 0), and once the request's own members.
        const request = { jsonrpc: "2.0", id: 1, method, params: body };
        const rpc = withDuplicate(request, target === 0 && round === 0 ? 0 : target + 1, plant);
        const rpcAnswer = await postText(hub.rpcUrl, "/", rpc.text, owner.accessSeed);
        assert.equal(rpcAnswer.status, 200);
        assertRpcDuplicate(rpcAnswer.body, `JSON-RPC ${method} ${rpc.text.slice(0, 200)}`);
        counts.rpc++;

        assertRpcDuplicate(await ws.send(rpc.text), `/ws ${method}`);
        counts.ws++;
      }
    }
  }
  ws.close();
  assert.equal(JSON.stringify(await client.listContracts()), before);
  figures[store] = counts;
}

describe("duplicate member names on every transport, on real hubs", { timeout: 600_000 }, () => {
  it("SQLite: REST 400, JSON-RPC and /ws -32700, all duplicate_key, nothing stored", () => attack("sqlite"));
  it("PostgreSQL: REST 400, JSON-RPC and /ws -32700, all duplicate_key, nothing stored", () => attack("postgres"));
});
