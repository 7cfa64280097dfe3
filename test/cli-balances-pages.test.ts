/**
 * `contract-hub balances` lists a contract's whole books when the hub answers them in pages
 * (`GET /contracts/:id/assets` answers at most 1,000 assets and 1,000 balances at a time,
 * docs/assets.md): a contract that created 1,030 assets shows all 1,030 balances, and the
 * --json document has the fields it had before paging (no page totals).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import type { Operation } from "../src/contract/Commit.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

const MANY = 1_030;
let hub: HubProcess;
let reader: Actor;

before(async () => {
  const base = tempDir("balances-pages");
  hub = await startHubProcess(join(base, "hub-data"));
  const identity = generateKeyPair();
  const access = generateKeyPair();
  const client = new HubClient({ url: hub.url });
  await client.register(identity.seed, access.seed);
  const writer = client.withKey(access.seed);
  await writer.createContract({ contract_id: "busy", model: null, rules: [] });
  let head = (await writer.getState("busy")).head;
  const commits = [];
  for (let i = 0; i < MANY; i += 64) {
    const ops: Operation[] = Array.from({ length: Math.min(64, MANY - i) }, (_, j) => ({
      method: "create",
      value: { asset_id: `a${String(i + j).padStart(5, "0")}`, quantity: 7, divisibility: 1 },
    }));
    const c = buildCommit("busy", head, ops);
    commits.push(c);
    head = c.hash;
  }
  for (let i = 0; i < commits.length; i += 4) await writer.push("busy", commits.slice(i, i + 4));
  reader = new Actor("reader", base, hub.url);
  await reader.ok(["clone", `${hub.url}/busy`, "busy"]);
});
after(async () => hub?.stop());

it("lists every balance of a contract whose books span two pages, in the document it always had", async () => {
  const doc = await reader.ok<{ balances: { asset_id: string; amount: number }[]; assets: unknown[] }>(
    ["balances"],
    join(reader.root, "busy"),
  );
  assert.deepEqual(Object.keys(doc).sort(), ["assets", "balances", "contract_id", "pending"]);
  assert.equal(doc.assets.length, MANY);
  assert.equal(doc.balances.length, MANY);
  assert.deepEqual(doc.balances.at(-1), { asset_id: "a01029", issuer: "busy", amount: 7 });
  const human = await reader.run(["balances"], join(reader.root, "busy"));
  assert.equal(human.code, 0, human.stderr);
  assert.equal(human.stdout.trim().split("\n").length, MANY);
});
