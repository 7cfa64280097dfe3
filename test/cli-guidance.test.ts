/**
 * The command line explains mistakes in the terms of what the person did (issue: refusals
 * that describe the mistake, a way out of a damaged working copy, the small glitches), every
 * step a real process against a real hub.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, cli, type HubProcess, setUpEscrow, startHubProcess, tempDir } from "./cli-support.js";

interface ErrorDoc {
  code: string;
  details?: Record<string, unknown> & { diagnosis?: Record<string, unknown>[] };
}

let hub: HubProcess;
let base: string;
let buyer: Actor;
let seller: Actor;

before(async () => {
  base = tempDir("guidance");
  hub = await startHubProcess(join(base, "hub-data"));
  buyer = new Actor("buyer", base, hub.url);
  seller = new Actor("seller", base, hub.url);
  await setUpEscrow(buyer, seller, hub.url);
});
after(async () => hub?.stop());

async function refused(actor: Actor, args: string[], cwd?: string): Promise<ErrorDoc> {
  const r = await actor.run([...args, "--json"], cwd);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  return r.json<ErrorDoc>();
}

describe("refusals that describe the mistake", () => {
  it("the wrong party's signature: whose is needed, and as whom the commit was signed", async () => {
    const err = await refused(seller, ["commit", "--action", "DEPOSIT"]);
    assert.equal(err.code, "VALIDATION_FAILED");
    assert.deepEqual(err.details?.diagnosis, [
      {
        kind: "needs_signature",
        action: "DEPOSIT",
        needed: ["/users/buyer.id"],
        signed_as: [{ key: "seller", paths: ["/users/seller.id"] }],
      },
    ]);
    const human = await seller.run(["commit", "--action", "DEPOSIT"]);
    assert.match(human.stderr, /buyer/);
  });

  it("an action the model does not have: the valid ones here", async () => {
    const err = await refused(buyer, ["commit", "--action", "DEPOSITT"]);
    assert.deepEqual(err.details?.diagnosis, [
      { kind: "unknown_action", actions: ["DEPOSITT"], valid: ["DEPOSIT"], elsewhere: false },
    ]);
  });

  it("an action taken one commit behind the hub: the hub has moved on, pull", async () => {
    await buyer.ok(["commit", "--action", "DEPOSIT"]);
    await buyer.ok(["push"]);
    await seller.ok(["pull"]);
    await seller.ok(["commit", "--action", "DELIVER"]);
    await seller.ok(["push"]);
    const err = await refused(buyer, ["commit", "--action", "RELEASE"]);
    assert.deepEqual(err.details?.diagnosis?.[0], { kind: "behind_hub", behind: 1 });
    const unknown = err.details?.diagnosis?.[1] as {
      kind: string;
      actions: string[];
      valid: string[];
      elsewhere: boolean;
    };
    assert.deepEqual([unknown.kind, unknown.actions, unknown.elsewhere], ["unknown_action", ["RELEASE"], true]);
    assert.ok(unknown.valid.includes("DELIVER"), String(unknown.valid));
    await buyer.ok(["pull"]);
    await buyer.ok(["commit", "--action", "RELEASE"]);
    await buyer.ok(["push"]);
  });

  it("init names the file of a syntax error, and shows the counterexample of a rule that fails", async () => {
    const dir = tempDir("init-files");
    writeFileSync(join(dir, "bad.modality"), "model m {\n  initial a\n  a => b\n}\n");
    writeFileSync(join(dir, "good.modality"), "model m {\n  initial a\n  a -> b [+GO]\n  b -> c [+STOP]\n}\n");
    writeFileSync(join(dir, "fails.modality"), "always(<+GO> true)\n");
    const bad = await refused(buyer, ["init", "x", "--model", "bad.modality"], dir);
    assert.equal(bad.code, "VALIDATION_FAILED");
    assert.deepEqual(
      [bad.details?.reason, bad.details?.file, bad.details?.line, bad.details?.column],
      ["parse_error", "bad.modality", 3, 5],
    );
    const args = ["init", "y", "--model", "good.modality", "--rule", "fails.modality"];
    const rule = await refused(buyer, args, dir);
    assert.equal(rule.details?.reason, "rule_violated");
    const human = await buyer.run(args, dir);
    assert.match(human.stderr, /counterexample: a -\[\+GO\]-> b/);
  });
});

describe("a damaged working copy", () => {
  it("every command names the way out, and reset --hard origin rebuilds the log from the hub", async () => {
    const file = join(seller.root, ".contract", "commits", "0000000001.json");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, original.replace('"DEPOSIT"', '"DEPOSlT"'));
    const status = await refused(seller, ["status"]);
    assert.equal(status.code, "CORRUPTED");
    assert.equal(status.details?.repair, "contract-hub reset --hard origin");
    const { contract_id } = JSON.parse(readFileSync(join(seller.root, ".contract", "config.json"), "utf8"));
    const clone = await refused(seller, ["clone", `${hub.url}/${contract_id}`, "."]);
    assert.equal(clone.details?.reason, "working_copy_exists");

    const reset = await seller.ok<{ rebuilt: boolean; pulled: number }>(["reset", "--hard", "origin"]);
    assert.equal(reset.rebuilt, true);
    assert.equal(reset.pulled, 4);
    assert.equal((await seller.ok<{ ok: boolean }>(["verify"])).ok, true);
    assert.equal(readFileSync(file, "utf8").includes('"DEPOSIT"'), true);
  });
});

describe("small glitches", () => {
  it("reset lists dropped commits with path and value; status counts '1 commit'", async () => {
    await buyer.ok(["commit", "--post", "/notes/late.text", "left at the door"]);
    const r = await buyer.run(["reset", "--hard", "origin"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Dropped 1 local commit\n.*post \/notes\/late\.text "left at the door"/);
  });

  it("human log shows every signer of a two-signer commit", async () => {
    const solo = new Actor("solo", base, hub.url);
    for (const name of ["b", "s"]) await solo.ok(["keygen", "--name", name]);
    await solo.ok(["register", "--key", "b"]);
    const args = ["init", ".", "--template", "escrow", "--param", "buyer=b", "--param", "seller=s", "--key", "b"];
    await solo.ok(args);
    await solo.ok(["commit", "--action", "DEPOSIT", "--sign", "b"]);
    await solo.ok(["commit", "--action", "CANCEL", "--sign", "b", "--sign", "s"]);
    const log = await solo.run(["log"]);
    assert.equal(log.code, 0, log.stderr);
    assert.match(log.stdout, /CANCEL\] by b, s/);
    const status = await solo.run(["status", "--offline"]);
    assert.match(status.stdout, /\(3 commits\)/);
  });

  it("a taken JSON-RPC port suggests --rpc-port and --no-rpc", async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, "127.0.0.1", ok));
    const port = (blocker.address() as { port: number }).port;
    try {
      const dir = tempDir("port");
      const r = await cli(["start", "--port", "0", "--rpc-port", String(port), "--data-dir", join(dir, "data")], {
        cwd: dir,
        home: join(dir, "home"),
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /--rpc-port/);
      assert.match(r.stderr, /--no-rpc/);
    } finally {
      blocker.close();
    }
  });
});

describe("assets from the command line", () => {
  it("balances shows the hub's books and unpushed changes; an overdrawn send is refused locally", async () => {
    const treasury = new Actor("treasury", base, hub.url);
    await treasury.ok(["keygen", "--name", "t"]);
    await treasury.ok(["register"]);
    writeFileSync(
      join(treasury.root, "bank.modality"),
      "model bank {\n  initial open\n  open -> open [+CREATE]\n  open -> open [+SEND]\n}\n",
    );
    const { contract_id } = await treasury.ok<{ contract_id: string }>(["init", "vault", "--model", "bank.modality"]);
    // A destination the hub holds: send refuses one it does not show before the balance is weighed.
    const till = await treasury.ok<{ contract_id: string }>(["init", "till", "--model", "bank.modality"]);
    const vault = join(treasury.root, "vault");
    await treasury.ok(["create", "--asset", "GOLD", "--quantity", "10"], vault);
    // A second CREATE of an asset this log already creates would sink the whole push (-32040): refused here.
    const twice = await refused(treasury, ["create", "--asset", "GOLD", "--quantity", "5"], vault);
    assert.deepEqual(
      [twice.code, twice.details?.reason, twice.details?.rpc_code, twice.details?.asset_id],
      ["VALIDATION_FAILED", "asset_exists", -32040, "GOLD"],
    );
    const before = await treasury.ok<{ balances: unknown[]; pending: unknown[] }>(["balances"], vault);
    assert.deepEqual(before.balances, []);
    assert.deepEqual(before.pending, [{ asset_id: "GOLD", change: 10 }]);
    await treasury.ok(["push"], vault);
    const after = await treasury.ok<{ balances: unknown[]; pending: unknown[] }>(["balances"], vault);
    assert.deepEqual(after.balances, [{ asset_id: "GOLD", issuer: contract_id, amount: 10 }]);
    assert.deepEqual(after.pending, []);
    const pushedTwice = await refused(treasury, ["create", "--asset", "GOLD", "--quantity", "5"], vault);
    assert.deepEqual([pushedTwice.details?.reason, pushedTwice.details?.rpc_code], ["asset_exists", -32040]);

    const to = ["--to", till.contract_id];
    const over = await refused(treasury, ["send", "--asset", "GOLD", ...to, "--amount", "11"], vault);
    assert.deepEqual(
      [over.code, over.details?.reason, over.details?.available],
      ["VALIDATION_FAILED", "insufficient_balance", 10],
    );
    await treasury.ok(["send", "--asset", "GOLD", ...to, "--amount", "4"], vault);
    const again = await refused(treasury, ["send", "--asset", "GOLD", ...to, "--amount", "7"], vault);
    assert.equal(again.details?.available, 6);
  });
});
