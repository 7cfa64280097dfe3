/**
 * The escrow story through the command line, every step a real process: a hub started with
 * `contract-hub start`, a buyer and a seller with their own key directories and working
 * copies. Then the conflict (both commit on one head) and its recovery, and a tampered
 * working copy caught by `verify`.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

interface StateDoc {
  current_state: string;
  valid_actions: { action: string; required_signers: string[] }[];
}
interface StatusDoc extends StateDoc {
  contract_id: string;
  head: string;
  ahead: number;
  behind: number | null;
  commit_count: number;
}
interface LogDoc {
  index: number;
  hash: string;
  method: string;
  action_labels?: string[];
  signer?: string;
}
interface ErrorDoc {
  code: string;
  details?: Record<string, unknown>;
}

let hub: HubProcess;
let buyer: Actor;
let seller: Actor;
let contractId: string;

before(async () => {
  const base = tempDir("escrow");
  hub = await startHubProcess(join(base, "hub-data"));
  buyer = new Actor("buyer", base, hub.url);
  seller = new Actor("seller", base, hub.url);
});
after(async () => hub?.stop());

describe("escrow across two working copies", () => {
  it("creates and registers keys for both parties", async () => {
    for (const a of [buyer, seller]) {
      const key = await a.ok<{ name: string; public_key: string }>(["keygen", "--name", a.name]);
      assert.equal(key.name, a.name);
      assert.match(key.public_key, /^[0-9a-f]{64}$/);
      a.publicKey = key.public_key;
      const reg = await a.ok<{ identity: string }>(["register"]);
      assert.equal(reg.identity, `ed25519:${a.publicKey}`);
    }
  });

  it("buyer inits from the escrow template; seller clones and verifies", async () => {
    const init = await buyer.ok<{ contract_id: string; state: StateDoc }>([
      "init",
      ".",
      "--template",
      "escrow",
      "--param",
      "buyer=buyer",
      "--param",
      `seller=${seller.publicKey}`,
    ]);
    contractId = init.contract_id;
    assert.equal(init.state.current_state, "init");
    assert.deepEqual(
      init.state.valid_actions.map((a) => [a.action, a.required_signers]),
      [["DEPOSIT", ["/users/buyer.id"]]],
    );
    const clone = await seller.ok<{ contract_id: string; commits: number }>(["clone", `${hub.url}/${contractId}`, "."]);
    assert.equal(clone.contract_id, contractId);
    assert.equal(clone.commits, 1);
  });

  it("runs DEPOSIT (buyer) → DELIVER (seller) → RELEASE (buyer) through push and pull", async () => {
    const dep = await buyer.ok<{ index: number; state: StateDoc; signers: string[] }>([
      "commit",
      "--action",
      "DEPOSIT",
    ]);
    assert.equal(dep.index, 1);
    assert.equal(dep.state.current_state, "deposited");
    assert.deepEqual(dep.signers, [`ed25519:${buyer.publicKey}`]);
    let st = await buyer.ok<StatusDoc>(["status"]);
    assert.equal(st.ahead, 1);
    assert.equal(st.behind, 0);
    assert.equal((await buyer.ok<{ pushed: number }>(["push"])).pushed, 1);

    st = await seller.ok<StatusDoc>(["status"]);
    assert.equal(st.behind, 1);
    const pulled = await seller.ok<{ pulled: number; state: StateDoc }>(["pull"]);
    assert.equal(pulled.pulled, 1);
    assert.equal(pulled.state.current_state, "deposited");
    // The seller's key signs DELIVER because it is the only key in the seller's directory.
    assert.equal(
      (await seller.ok<{ state: StateDoc }>(["commit", "--action", "DELIVER"])).state.current_state,
      "delivered",
    );
    assert.equal((await seller.ok<{ pushed: number }>(["push"])).pushed, 1);

    // Before pulling, the buyer's RELEASE is refused locally, with the engine's explanation.
    const early = await buyer.run(["commit", "--action", "RELEASE", "--json"]);
    assert.equal(early.code, 1);
    const err = early.json<ErrorDoc>();
    assert.equal(err.code, "VALIDATION_FAILED");
    assert.equal(err.details?.reason, "no_transition");
    assert.ok(Array.isArray(err.details?.candidates));

    assert.equal((await buyer.ok<{ pulled: number }>(["pull"])).pulled, 1);
    assert.equal(
      (await buyer.ok<{ state: StateDoc }>(["commit", "--action", "RELEASE"])).state.current_state,
      "released",
    );
    assert.equal((await buyer.ok<{ pushed: number }>(["push"])).pushed, 1);

    st = await buyer.ok<StatusDoc>(["status"]);
    assert.equal(st.contract_id, contractId);
    assert.equal(st.current_state, "released");
    assert.equal(st.commit_count, 4);
    assert.deepEqual([st.ahead, st.behind], [0, 0]);
    const log = await buyer.ok<LogDoc[]>(["log"]);
    assert.deepEqual(
      log.map((e) => [e.index, e.method, e.action_labels]),
      [
        [0, "genesis", undefined],
        [1, "action", ["DEPOSIT"]],
        [2, "action", ["DELIVER"]],
        [3, "action", ["RELEASE"]],
      ],
    );
    assert.deepEqual(
      log.slice(1).map((e) => e.signer),
      [buyer.publicKey, seller.publicKey, buyer.publicKey].map((k) => `ed25519:${k}`),
    );
    await seller.ok(["pull"]);
    assert.deepEqual(
      (await seller.ok<LogDoc[]>(["log"])).map((e) => e.hash),
      log.map((e) => e.hash),
    );
  });

  it("grant: the owner grants, a party that is not the owner is refused", async () => {
    const g = await buyer.ok<{ identity: string; role: string }>(["grant", seller.publicKey, "--role", "reader"]);
    assert.deepEqual([g.identity, g.role], [`ed25519:${seller.publicKey}`, "reader"]);
    const refused = await seller.run(["grant", buyer.publicKey, "--role", "writer", "--json"]);
    assert.equal(refused.code, 1);
    assert.equal(refused.json<ErrorDoc>().code, "FORBIDDEN");
  });

  it("works from a subfolder of the working copy", async () => {
    const sub = join(buyer.root, "notes", "drafts");
    mkdirSync(sub, { recursive: true });
    const st = await buyer.ok<StatusDoc>(["status", "--offline"], sub);
    assert.equal(st.contract_id, contractId);
    assert.equal(st.behind, null);
  });

  it("refuses the second push on a stale head, refuses to pull a divergence, recovers by reset --hard origin", async () => {
    await buyer.ok(["commit", "--post", "/notes/buyer.text", "sent by courier"]);
    await seller.ok(["commit", "--post", "/notes/seller.text", "received"]);
    assert.equal((await seller.ok<{ pushed: number }>(["push"])).pushed, 1);

    const push = await buyer.run(["push", "--json"]);
    assert.equal(push.code, 1);
    assert.equal(push.json<ErrorDoc>().code, "CONFLICT");
    const pull = await buyer.run(["pull", "--json"]);
    assert.equal(pull.code, 1);
    const diverged = pull.json<ErrorDoc>();
    assert.equal(diverged.code, "CONFLICT");
    assert.equal(diverged.details?.reason, "diverged");
    const diff = await buyer.ok<{ local_only: LogDoc[]; remote_only: LogDoc[] }>(["diff"]);
    assert.equal(diff.local_only.length, 1);
    assert.equal(diff.remote_only.length, 1);
    assert.deepEqual(diverged.details?.local_only, [diff.local_only[0]!.hash]);

    const reset = await buyer.ok<{ dropped: LogDoc[]; pulled: number; head: string }>(["reset", "--hard", "origin"]);
    assert.deepEqual(
      reset.dropped.map((e) => e.hash),
      [diff.local_only[0]!.hash],
    );
    assert.equal(reset.pulled, 1);
    assert.equal(reset.head, diff.remote_only[0]!.hash);
    const st = await buyer.ok<StatusDoc>(["status"]);
    assert.deepEqual([st.ahead, st.behind], [0, 0]);

    // Committed again on the new head, the buyer's note goes through.
    await buyer.ok(["commit", "--post", "/notes/buyer.text", "sent by courier"]);
    assert.equal((await buyer.ok<{ pushed: number }>(["push"])).pushed, 1);
    assert.equal((await seller.ok<{ pulled: number }>(["pull"])).pulled, 1);
  });

  it("verify names the commit whose stored file had a byte flipped", async () => {
    const clean = await buyer.ok<{ ok: boolean; commits: number }>(["verify"]);
    assert.equal(clean.ok, true);
    assert.equal(clean.commits, 6);

    const file = join(buyer.root, ".contract", "commits", "0000000002.json");
    const bytes = readFileSync(file);
    const at = bytes.indexOf('"DELIVER"') + 1;
    assert.ok(at > 0);
    bytes[at] = bytes[at]! ^ 0x01;
    writeFileSync(file, bytes);

    const r = await buyer.run(["verify", "--json"]);
    assert.equal(r.code, 1);
    const report = r.json<{ ok: boolean; damage: { index: number; hash: string } }>();
    assert.equal(report.ok, false);
    assert.equal(report.damage.index, 2);
    const log = await seller.ok<LogDoc[]>(["log"]);
    assert.equal(report.damage.hash, log[2]!.hash);
  });
});
