/**
 * `send` of a plain asset id that the hub would call ambiguous, every step a real process
 * against a real hub on loopback. The hub resolves a plain id to the sender's own asset, else
 * to the one asset of that id the sender holds of another issuer: of several, those with a
 * positive balance count, and if that still leaves several (or none is positive and several
 * are held) it refuses the SEND, `asset_ambiguous` (docs/assets.md). It decides after the
 * earlier commits of the same push, so the unpushed commits count too. `send` now refuses
 * such a SEND before writing it, with the hub's code and details; before, it recorded it with
 * `balance_not_checked` and the push was refused.
 *
 * The depot holds 5 GOLD issued by the sink and 5 issued by the mint; the sink and the mint
 * each send it 5 SILVER of their own, and it has received only the sink's.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Actor, ErrorDoc, SendDoc } from "./cli-support.js";
import { type BanksBehindProxy, banksBehindProxy } from "./support/banksBehindProxy.js";
import { json, type TamperingProxy } from "./support/tamperingProxy.js";

let banks: BanksBehindProxy;
let relay: Actor;
let proxy: TamperingProxy;
let depot: string;
let depotId: string;
let sinkId: string;
let mintId: string;
/** The mint's SEND of 5 SILVER to the depot, not yet received. */
let mintSilver: string;

before(async () => {
  banks = await banksBehindProxy("send-ambiguous-asset");
  ({ relay, proxy, depot, depotId, sinkId } = banks);
  mintId = (await relay.ok<{ contract_id: string }>(["init", "mint", "--model", "bank.modality"])).contract_id;
  const received: string[] = [];
  for (const from of [banks.sink, `${relay.root}/mint`]) {
    for (const asset of ["GOLD", "SILVER"]) {
      await relay.ok(["create", "--asset", asset, "--quantity", "10"], from);
      received.push((await relay.ok<SendDoc>(sendArgs(asset, 5, depotId), from)).hash);
    }
    await relay.ok(["push"], from);
  }
  mintSilver = received.pop()!;
  for (const hash of received) await relay.ok(["recv", "--send", hash], depot);
  await relay.ok(["push"], depot);
});
after(async () => banks?.close());

function sendArgs(asset: string, amount: number, to = sinkId): string[] {
  return ["send", "--asset", asset, "--to", to, "--amount", String(amount)];
}

/** How many commits the depot's working copy holds that the hub does not. */
async function ahead(): Promise<number> {
  return (await relay.ok<{ ahead: number }>(["status", "--offline"], depot)).ahead;
}

/** The depot's SEND of `args` is refused as the hub refuses an ambiguous id, and nothing is written. */
async function refusedAmbiguous(args: string[], candidates: string[]): Promise<ErrorDoc> {
  const before = await ahead();
  const r = await relay.run([...args, "--json"], depot);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const doc = r.json<ErrorDoc>();
  assert.equal(doc.code, "VALIDATION_FAILED");
  assert.deepEqual(doc.details, { reason: "asset_ambiguous", rpc_code: -32022, candidates: [...candidates].sort() });
  assert.equal(await ahead(), before, "nothing written");
  return doc;
}

/** Sends from the depot: recorded, exit 0, with exactly `codes`. */
async function recordedWith(args: string[], codes: string[]): Promise<void> {
  const r = await relay.run([...args, "--json"], depot);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(r.json<SendDoc>().warning_codes ?? [], codes, r.stdout);
}

const reset = () => relay.ok(["reset", "--hard", "origin"], depot);

describe("send of a plain id the hub would call ambiguous", () => {
  it("held of two issuers with a balance: refused with the hub's code and details, exit 1", async () => {
    try {
      await refusedAmbiguous(sendArgs("GOLD", 1), [`${sinkId}/GOLD`, `${mintId}/GOLD`]);
    } finally {
      await reset();
    }
  });

  it("the same error the hub gives at push for the same SEND", async () => {
    try {
      const local = await refusedAmbiguous(sendArgs("GOLD", 1), [`${sinkId}/GOLD`, `${mintId}/GOLD`]);
      await relay.ok([...sendArgs("GOLD", 1), "--offline"], depot);
      const r = await relay.run(["push", "--json"], depot);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const pushed = r.json<ErrorDoc>();
      const { reason, rpc_code, candidates } = pushed.details ?? {};
      assert.deepEqual(
        { code: pushed.code, details: { reason, rpc_code, candidates } },
        { code: local.code, details: local.details },
      );
    } finally {
      await reset();
    }
  });

  it("named as issuer/asset_id: recorded without a warning", async () => {
    try {
      await recordedWith(sendArgs(`${mintId}/GOLD`, 5), []);
    } finally {
      await reset();
    }
  });

  it("an unpushed SEND empties one of them: the other is the hub's choice, and its balance is checked", async () => {
    try {
      await relay.ok(sendArgs(`${mintId}/GOLD`, 5), depot);
      const r = await relay.run([...sendArgs("GOLD", 6), "--json"], depot);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.deepEqual(
        [r.json<ErrorDoc>().details?.reason, r.json<ErrorDoc>().details?.available],
        ["insufficient_balance", 5],
      );
      await recordedWith(sendArgs("GOLD", 2), []);
      await recordedWith(sendArgs("GOLD", 3), []);
    } finally {
      await reset();
    }
  });

  it("unpushed SENDs empty both: none has a balance and both are held, refused as the hub would", async () => {
    try {
      await relay.ok(sendArgs(`${mintId}/GOLD`, 5), depot);
      await relay.ok(sendArgs(`${sinkId}/GOLD`, 5), depot);
      await refusedAmbiguous(sendArgs("GOLD", 1), [`${sinkId}/GOLD`, `${mintId}/GOLD`]);
    } finally {
      await reset();
    }
  });

  it("an unpushed CREATE of the id makes it this contract's own: not refused", async () => {
    try {
      await relay.ok(["create", "--asset", "GOLD", "--quantity", "10"], depot);
      await recordedWith(sendArgs("GOLD", 1), []);
    } finally {
      await reset();
    }
  });

  it("held of one issuer on the hub, an unpushed RECV brings in another's: refused", async () => {
    try {
      await recordedWith(sendArgs("SILVER", 1), []);
      await reset();
      await relay.ok(["recv", "--send", mintSilver], depot);
      await refusedAmbiguous(sendArgs("SILVER", 1), [`${sinkId}/SILVER`, `${mintId}/SILVER`]);
    } finally {
      await reset();
    }
  });

  it("books whose amounts cannot be read: balance_not_checked, not a refusal", async () => {
    proxy.rule = (path, up) => {
      if (path !== `/contracts/${depotId}/assets` || up.status !== 200) return up;
      const doc = JSON.parse(up.body) as { balances: Record<string, unknown>[] };
      doc.balances = doc.balances.map((b) => ({ ...b, amount: "plenty" }));
      return json(200, doc);
    };
    try {
      await recordedWith(sendArgs("GOLD", 1), ["balance_not_checked"]);
    } finally {
      proxy.rule = null;
      await reset();
    }
  });

  it("for people: exit 1, and the asset names are not listed as transitions tried", async () => {
    try {
      const r = await relay.run(sendArgs("GOLD", 1), depot);
      assert.equal(r.code, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /undefined/);
    } finally {
      await reset();
    }
  });
});
