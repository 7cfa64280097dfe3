/**
 * `send --to` asks the hub about the destination before anything is written, every step a
 * real process against a real hub on loopback: a contract the hub shows this key is recorded;
 * one it does not (a typo, or a private contract this key may not read: the hub answers both
 * alike) is refused and the log stays as it was; `--no-recipient-check` records it without
 * asking about the destination but still refuses an overdraw; `--offline` records it unasked,
 * and the hub decides at push; a hub that cannot be reached leaves the SEND recorded with a
 * warning.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { Actor, type ErrorDoc, type HubProcess, type SendDoc, startHubProcess, tempDir } from "./cli-support.js";

interface LogEntry {
  hash: string;
  method: string;
  value?: { to_contract?: string };
}

const BANK =
  "model bank {\n  initial open\n  open -> open [+CREATE]\n  open -> open [+SEND]\n  open -> open [+RECV]\n}\n";

let base: string;
let hub: HubProcess;
let treasury: Actor;
let stranger: Actor;
let vault: string;
let tillId: string;
let hiddenId: string;
let sharedId: string;

/** A private contract of `owner` (its key `name`), readable by `readers` (public keys in hex). */
async function privateContract(owner: Actor, name: string, id: string, readers: string[]): Promise<string> {
  const seed = Buffer.from(
    (JSON.parse(readFileSync(join(owner.home, "keys", `${name}.json`), "utf8")) as { seed: string }).seed,
    "hex",
  );
  const client = new HubClient({ url: hub.url, accessKey: seed });
  return (await client.createContract({ contract_id: id, readers })).contract_id;
}

before(async () => {
  base = tempDir("send-destination");
  hub = await startHubProcess(join(base, "hub-data"));
  treasury = new Actor("treasury", base, hub.url);
  treasury.publicKey = (await treasury.ok<{ public_key: string }>(["keygen", "--name", "t"])).public_key;
  await treasury.ok(["register"]);
  stranger = new Actor("stranger", base, hub.url);
  stranger.publicKey = (await stranger.ok<{ public_key: string }>(["keygen", "--name", "s"])).public_key;
  await stranger.ok(["register"]);
  writeFileSync(join(treasury.root, "bank.modality"), BANK);
  await treasury.ok(["init", "vault", "--model", "bank.modality"]);
  tillId = (await treasury.ok<{ contract_id: string }>(["init", "till", "--model", "bank.modality"])).contract_id;
  vault = join(treasury.root, "vault");
  await treasury.ok(["create", "--asset", "GOLD", "--quantity", "100"], vault);
  await treasury.ok(["push"], vault);
  // Private contracts of another identity: one the treasury may read, one it may not.
  hiddenId = await privateContract(stranger, "s", "c_hidden_from_treasury", [stranger.publicKey]);
  sharedId = await privateContract(stranger, "s", "c_shared_with_treasury", [treasury.publicKey]);
});
after(async () => hub?.stop());

const sendArgs = (to: string, amount = 1) => ["send", "--asset", "GOLD", "--to", to, "--amount", String(amount)];
const localLog = (cwd: string) => treasury.ok<LogEntry[]>(["log"], cwd);

async function refused(args: string[], cwd: string): Promise<ErrorDoc> {
  const r = await treasury.run([...args, "--json"], cwd);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  return r.json<ErrorDoc>();
}

describe("send checks its destination on the hub", () => {
  it("refuses a destination the hub does not show, and writes nothing", async () => {
    const before = await localLog(vault);
    const typo = await refused(sendArgs(`${tillId}x`), vault);
    assert.deepEqual(
      [typo.code, typo.details?.reason, typo.details?.to_contract],
      ["NOT_FOUND", "recipient_not_visible", `${tillId}x`],
    );
    assert.equal(typeof typo.details?.hint, "string");
    assert.deepEqual(await localLog(vault), before);
    // For people too: exit 1, the message on stderr, nothing on stdout.
    const human = await treasury.run(sendArgs(`${tillId}x`), vault);
    assert.equal(human.code, 1, human.stderr);
    assert.equal(human.stdout, "");
    assert.deepEqual(await localLog(vault), before);
  });

  it("records a SEND to a contract the hub shows, without warnings", async () => {
    const before = await localLog(vault);
    const sent = await treasury.ok<SendDoc>(sendArgs(tillId), vault);
    assert.equal("warnings" in sent, false);
    const after = await localLog(vault);
    assert.equal(after.length, before.length + 1);
    assert.deepEqual([after.at(-1)?.hash, after.at(-1)?.value?.to_contract], [sent.hash, tillId]);
    // A private contract this key may read is shown to it, so it is known too.
    const shared = await treasury.ok<SendDoc>(sendArgs(sharedId), vault);
    assert.equal("warnings" in shared, false);
    await treasury.ok(["push"], vault);
  });

  it("does not call a private contract it may not read unknown; --offline records it and the hub takes it at push", async () => {
    const before = await localLog(vault);
    const hidden = await refused(sendArgs(hiddenId), vault);
    assert.deepEqual([hidden.code, hidden.details?.reason], ["NOT_FOUND", "recipient_not_visible"]);
    assert.notEqual(hidden.details?.rpc_code, -32025);
    assert.deepEqual(await localLog(vault), before);

    const offline = await treasury.ok<SendDoc>([...sendArgs(hiddenId), "--offline"], vault);
    assert.equal("warnings" in offline, false);
    assert.equal((await localLog(vault)).length, before.length + 1);
    const pushed = await treasury.ok<{ pushed: number }>(["push"], vault);
    assert.equal(pushed.pushed, 1);
  });

  it("--offline asks the hub nothing: an unknown destination is left to the push", async () => {
    const before = await localLog(vault);
    const sent = await treasury.ok<SendDoc>([...sendArgs("c_nowhere"), "--offline"], vault);
    assert.equal((await localLog(vault)).length, before.length + 1);
    const push = await refused(["push"], vault);
    assert.deepEqual(
      [push.code, push.details?.reason, push.details?.rpc_code, push.details?.commit_hash],
      ["VALIDATION_FAILED", "recipient_not_found", -32025, sent.hash],
    );
    await treasury.ok(["reset", "--hard", "origin"], vault);
  });

  it("records the SEND with a warning when the hub cannot be reached", async () => {
    // A working copy of a second hub, which is then stopped.
    const away = await startHubProcess(join(base, "away-data"));
    const field = new Actor("field", base, away.url);
    await field.ok(["keygen", "--name", "f"]);
    await field.ok(["register"]);
    writeFileSync(join(field.root, "bank.modality"), BANK);
    await field.ok(["init", "depot", "--model", "bank.modality"]);
    const depot = join(field.root, "depot");
    await field.ok(["create", "--asset", "GOLD", "--quantity", "10"], depot);
    await away.stop();

    const before = await field.ok<LogEntry[]>(["log"], depot);
    const sent = await field.ok<SendDoc>(sendArgs("c_somewhere"), depot);
    // Neither check was made: one warning each, in that order.
    assert.deepEqual(sent.warning_codes, ["destination_not_checked", "balance_not_checked"]);
    assert.equal(sent.warnings?.length, 2);
    assert.ok(sent.warnings[0]!.includes("c_somewhere"), sent.warnings[0]);
    const after = await field.ok<LogEntry[]>(["log"], depot);
    assert.equal(after.length, before.length + 1);
    assert.equal(after.at(-1)?.hash, sent.hash);

    const human = await field.run(sendArgs("c_somewhere"), depot);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stderr.split("\n").filter((l) => l.startsWith("warning: ")).length, 2, human.stderr);
    assert.equal((await field.ok<LogEntry[]>(["log"], depot)).length, before.length + 2);

    // Without the destination check the balance still could not be asked: that is said too.
    const unseen = await field.ok<SendDoc>([...sendArgs("c_somewhere"), "--no-recipient-check"], depot);
    assert.deepEqual(unseen.warning_codes, ["balance_not_checked"]);
    assert.equal(unseen.warnings?.length, 1);
    assert.equal((await field.ok<LogEntry[]>(["log"], depot)).length, before.length + 3);
  });
});

describe("send --no-recipient-check skips only the destination check", () => {
  it("the refusal of a destination the hub does not show names the flag", async () => {
    const hidden = await refused(sendArgs(hiddenId), vault);
    assert.equal(hidden.details?.reason, "recipient_not_visible");
    const hint = String(hidden.details?.hint);
    assert.ok(hint.includes("--no-recipient-check"), hint);
    assert.equal(hint.includes("--offline"), false, hint);
  });

  it("records a SEND to a private contract this key may not read; the hub takes it at push", async () => {
    const before = await localLog(vault);
    const sent = await treasury.ok<SendDoc>([...sendArgs(hiddenId), "--no-recipient-check"], vault);
    assert.equal("warnings" in sent, false);
    const after = await localLog(vault);
    assert.equal(after.length, before.length + 1);
    assert.deepEqual([after.at(-1)?.hash, after.at(-1)?.value?.to_contract], [sent.hash, hiddenId]);
    const pushed = await treasury.ok<{ pushed: number }>(["push"], vault);
    assert.equal(pushed.pushed, 1);
  });

  it("still refuses an overdraw and an asset this contract does not hold, and writes nothing", async () => {
    const before = await localLog(vault);
    const over = await refused([...sendArgs(hiddenId, 1000), "--no-recipient-check"], vault);
    // 100 created, 4 sent by the tests above.
    assert.deepEqual(
      [over.code, over.details?.reason, over.details?.amount, over.details?.available],
      ["VALIDATION_FAILED", "insufficient_balance", 1000, 96],
    );
    const silver = ["send", "--asset", "SILVER", "--to", hiddenId, "--amount", "1", "--no-recipient-check"];
    const none = await refused(silver, vault);
    assert.deepEqual([none.code, none.details?.reason], ["VALIDATION_FAILED", "asset_not_found"]);
    assert.deepEqual(await localLog(vault), before);
  });
});
