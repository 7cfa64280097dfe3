/**
 * Incoming SENDs from the command line, every step a real process against a real hub: a
 * contract sends, the recipient's `incoming` lists the SENDs with the short hashes the CLI
 * prints, `recv --send` takes a 7-character prefix back, and the SEND leaves the pending list.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

interface IncomingDoc {
  contract_id: string;
  pending: boolean;
  sends: {
    send_commit_id: string;
    from_contract: string;
    asset_id: string;
    issuer: string;
    amount: number;
    received: boolean;
    recv_commit_id: string | null;
    recv_not_pushed: string | null;
  }[];
}
interface ErrorDoc {
  code: string;
  details?: Record<string, unknown>;
}

let hub: HubProcess;
let treasury: Actor;
let vault: string;
let till: string;
let vaultId: string;
let tillId: string;

before(async () => {
  const base = tempDir("incoming");
  hub = await startHubProcess(join(base, "hub-data"));
  treasury = new Actor("treasury", base, hub.url);
  await treasury.ok(["keygen", "--name", "t"]);
  await treasury.ok(["register"]);
  writeFileSync(
    join(treasury.root, "bank.modality"),
    "model bank {\n  initial open\n  open -> open [+CREATE]\n  open -> open [+SEND]\n  open -> open [+RECV]\n}\n",
  );
  vaultId = (await treasury.ok<{ contract_id: string }>(["init", "vault", "--model", "bank.modality"])).contract_id;
  tillId = (await treasury.ok<{ contract_id: string }>(["init", "till", "--model", "bank.modality"])).contract_id;
  vault = join(treasury.root, "vault");
  till = join(treasury.root, "till");
});
after(async () => hub?.stop());

async function failed(args: string[], cwd: string, exit: number): Promise<ErrorDoc> {
  const r = await treasury.run([...args, "--json"], cwd);
  assert.equal(r.code, exit, r.stdout + r.stderr);
  return r.json<ErrorDoc>();
}

describe("incoming and recv by prefix", () => {
  it("lists SENDs to this contract, receives one by a 7-character prefix, and drops it from the pending list", async () => {
    await treasury.ok(["create", "--asset", "GOLD", "--quantity", "10"], vault);
    const first = (
      await treasury.ok<{ hash: string }>(["send", "--asset", "GOLD", "--to", tillId, "--amount", "3"], vault)
    ).hash;
    const second = (
      await treasury.ok<{ hash: string }>(["send", "--asset", "GOLD", "--to", tillId, "--amount", "2"], vault)
    ).hash;
    await treasury.ok(["push"], vault);

    const listed = await treasury.ok<IncomingDoc>(["incoming"], till);
    assert.deepEqual([listed.contract_id, listed.pending], [tillId, true]);
    assert.deepEqual(
      listed.sends.map((s) => [s.send_commit_id, s.from_contract, s.asset_id, s.issuer, s.amount, s.received]),
      [
        [first, vaultId, "GOLD", vaultId, 3, false],
        [second, vaultId, "GOLD", vaultId, 2, false],
      ],
    );
    // For people: the short hashes the CLI prints everywhere (as `log` does), and the next step.
    const human = await treasury.run(["incoming"], till);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.includes(`  ${first.slice(0, 12)}  3 GOLD`), human.stdout);
    assert.ok(human.stdout.includes(`recv --send ${first.slice(0, 12)}`), human.stdout);
    const log = await treasury.run(["log"], vault);
    assert.ok(log.stdout.includes(` ${first.slice(0, 12)} send`), log.stdout);

    await treasury.ok(["recv", "--send", first.slice(0, 7)], till);
    const entries = await treasury.ok<{ method: string; value?: unknown }[]>(["log"], till);
    assert.deepEqual(entries.at(-1)?.value, { send_commit_id: first });
    // Received by an unpushed commit: still pending on the hub, marked here; a second recv of it is refused.
    const unpushed = await treasury.ok<IncomingDoc>(["incoming"], till);
    assert.deepEqual(
      unpushed.sends.map((s) => [s.send_commit_id, s.recv_not_pushed !== null]),
      [
        [first, true],
        [second, false],
      ],
    );
    const twice = await failed(["recv", "--send", first.slice(0, 9)], till, 1);
    assert.deepEqual([twice.code, twice.details?.reason], ["VALIDATION_FAILED", "already_received"]);

    await treasury.ok(["push"], till);
    const pending = await treasury.ok<IncomingDoc>(["incoming"], till);
    assert.deepEqual(
      pending.sends.map((s) => s.send_commit_id),
      [second],
    );
    const all = await treasury.ok<IncomingDoc>(["incoming", "--all"], till);
    const recvHash = entries.at(-1) as unknown as { hash: string };
    assert.deepEqual(
      all.sends.map((s) => [s.send_commit_id, s.received, s.recv_commit_id]),
      [
        [first, true, recvHash.hash],
        [second, false, null],
      ],
    );
    const balances = await treasury.ok<{ balances: unknown[] }>(["balances"], till);
    assert.deepEqual(balances.balances, [{ asset_id: "GOLD", issuer: vaultId, amount: 3 }]);
    // A prefix of a SEND the hub has recorded as received: refused with the hub's code, not "unknown".
    const received = await failed(["recv", "--send", first.slice(0, 8)], till, 1);
    assert.deepEqual(
      [received.code, received.details?.reason, received.details?.received_by],
      ["VALIDATION_FAILED", "already_received", recvHash.hash],
    );
  });

  it("refuses an unknown prefix (NOT_FOUND) and a short or non-hex one (usage)", async () => {
    const sends = (await treasury.ok<IncomingDoc>(["incoming", "--all"], till)).sends.map((s) => s.send_commit_id);
    // A prefix no SEND to this contract has.
    const unknown = ["0000000", "1111111", "2222222"].find((p) => !sends.some((s) => s.startsWith(p)))!;
    const missing = await failed(["recv", "--send", unknown], till, 1);
    assert.deepEqual([missing.code, missing.details?.reason], ["NOT_FOUND", "send_not_found"]);
    const human = await treasury.run(["recv", "--send", unknown], till);
    assert.match(human.stderr, /contract-hub incoming/);
    for (const bad of ["abc123", "xyz1234", sends[0]!.slice(0, 6)]) {
      const r = await failed(["recv", "--send", bad], till, 2);
      assert.equal(r.code, "USAGE");
    }
  });

  it("counts unpushed RECVs in send's balance check: what one brings in may be sent on in the same push", async () => {
    // till holds 3 GOLD on the hub, vault 5; the SEND of 2 to till from the first test is still pending.
    const second = (await treasury.ok<IncomingDoc>(["incoming"], till)).sends[0]!.send_commit_id;
    await treasury.ok(["recv", "--send", second], till);
    // balances lists the unpushed receipt as pending, under the asset's issuer.
    const listed = await treasury.ok<{ pending: unknown[] }>(["balances"], till);
    assert.deepEqual(listed.pending, [{ asset_id: `${vaultId}/GOLD`, change: 2 }]);
    await treasury.ok(["send", "--asset", "GOLD", "--to", vaultId, "--amount", "5"], till);
    const over = await failed(["send", "--asset", "GOLD", "--to", vaultId, "--amount", "1"], till, 1);
    assert.deepEqual(
      [over.code, over.details?.reason, over.details?.available],
      ["VALIDATION_FAILED", "insufficient_balance", 0],
    );
    await treasury.ok(["push"], till);
    // An asset this contract holds none of, and no unpushed commit creates or receives: refused
    // as the hub would refuse it (-32022), and nothing is written.
    const before = (await treasury.ok<unknown[]>(["log"], till)).length;
    const none = await failed(["send", "--asset", "SILVER", "--to", vaultId, "--amount", "1"], till, 1);
    assert.deepEqual(
      [none.code, none.details?.reason, none.details?.rpc_code],
      ["VALIDATION_FAILED", "asset_not_found", -32022],
    );
    assert.equal((await treasury.ok<unknown[]>(["log"], till)).length, before);

    // A SEND to itself, received back before the push, leaves the balance as it was.
    const self = (
      await treasury.ok<{ hash: string }>(["send", "--asset", "GOLD", "--to", vaultId, "--amount", "5"], vault)
    ).hash;
    await treasury.ok(["recv", "--send", self], vault);
    await treasury.ok(["send", "--asset", "GOLD", "--to", tillId, "--amount", "5"], vault);
    await treasury.ok(["push"], vault);
    for (const cwd of [till, vault]) {
      const held = await treasury.ok<{ balances: { amount: number }[] }>(["balances"], cwd);
      assert.deepEqual(
        held.balances.map((b) => b.amount),
        [0],
      );
    }
  });
});
