/**
 * `send` when the hub answers the balance lookup (the sender's books) but its answer leaves
 * the balance of the named asset unknown, every step a real process against a real hub on
 * loopback, some answers rewritten by a real HTTP proxy in front of it. Each case records the
 * SEND (exit 0) with the warning `balance_not_checked`, as when the books cannot be asked at
 * all; before, each was recorded without a word, and the overdraw was left to sink the push:
 *
 * - an `issuer/asset_id` whose issuer the books hold none of, while they hold the id of others
 *   (a plain id held of several issuers is refused as ambiguous: cli-send-ambiguous-asset);
 * - a name spelled otherwise than the unpushed CREATE that makes the asset;
 * - an unpushed RECV, which might bring in the asset, and no other trace of it;
 * - a booked amount that is not a number (a rewritten answer), or no amount at all.
 *
 * The same books answered plainly, with the asset named as the hub books it, still refuse the
 * overdraw: the balance was read.
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
let sink: string;
let sinkId: string;
/** A SEND of 1 GOLD from the sink to the depot that the depot has not received. */
let waiting: string;

/** Two other contracts each send the depot 5 GOLD of their own, which it receives and pushes. */
before(async () => {
  banks = await banksBehindProxy("send-unknown-balance");
  ({ relay, proxy, depot, depotId, sink, sinkId } = banks);
  await relay.ok(["init", "mint", "--model", "bank.modality"]);
  const mint = `${relay.root}/mint`;
  const received: string[] = [];
  for (const from of [sink, mint]) {
    await relay.ok(["create", "--asset", "GOLD", "--quantity", "10"], from);
    received.push((await relay.ok<SendDoc>(sendArgs("GOLD", 5, depotId), from)).hash);
    await relay.ok(["push"], from);
  }
  for (const hash of received) await relay.ok(["recv", "--send", hash], depot);
  await relay.ok(["push"], depot);
  waiting = (await relay.ok<SendDoc>(sendArgs("GOLD", 1, depotId), sink)).hash;
  await relay.ok(["push"], sink);
});
after(async () => banks?.close());

function sendArgs(asset: string, amount: number, to = sinkId): string[] {
  return ["send", "--asset", asset, "--to", to, "--amount", String(amount)];
}

/** Sends from the depot: recorded, exit 0, with exactly `codes`; then forgets every unpushed commit. */
async function recordedWith(args: string[], codes: string[]): Promise<void> {
  try {
    const r = await relay.run([...args, "--json"], depot);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const sent = r.json<SendDoc>();
    assert.deepEqual(sent.warning_codes ?? [], codes, r.stdout);
    assert.equal(sent.warnings?.length ?? 0, codes.length);
  } finally {
    await relay.ok(["reset", "--hard", "origin"], depot);
  }
}

/** The depot's books as the hub answers them, each balance's amount replaced by `amount`. */
function booksWithAmount(amount: unknown): void {
  proxy.rule = (path, up) => {
    if (path !== `/contracts/${depotId}/assets` || up.status !== 200) return up;
    const doc = JSON.parse(up.body) as { balances: Record<string, unknown>[] };
    doc.balances = doc.balances.map((b) => ({ ...b, amount }));
    return json(200, doc);
  };
}

describe("send when the hub's books leave the balance unknown", () => {
  it("the books read plainly: an overdraw of the asset named as booked is refused", async () => {
    const r = await relay.run([...sendArgs(`${sinkId}/GOLD`, 1000), "--json"], depot);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const over = r.json<ErrorDoc>();
    assert.deepEqual([over.details?.reason, over.details?.available], ["insufficient_balance", 5]);
  });

  it("an issuer/asset_id of an issuer the books hold none of, while they hold the id of others: balance_not_checked", async () => {
    await recordedWith(sendArgs(`${depotId}/GOLD`, 1000), ["balance_not_checked"]);
  });

  it("a name spelled otherwise than the unpushed CREATE: balance_not_checked", async () => {
    await relay.ok(["create", "--asset", "SILVER", "--quantity", "10"], depot);
    await recordedWith(sendArgs(`${depotId}/SILVER`, 1000), ["balance_not_checked"]);
  });

  it("an unpushed RECV and no other trace of the asset: balance_not_checked", async () => {
    await relay.ok(["recv", "--send", waiting], depot);
    await recordedWith(sendArgs("TIN", 1000), ["balance_not_checked"]);
  });

  it("a booked amount that is not a number: balance_not_checked, not a comparison with it", async () => {
    booksWithAmount("plenty");
    try {
      await recordedWith(sendArgs(`${sinkId}/GOLD`, 1000), ["balance_not_checked"]);
    } finally {
      proxy.rule = null;
    }
  });

  it("a balance with no amount: balance_not_checked, not a refusal for a balance of 0", async () => {
    booksWithAmount(null);
    try {
      await recordedWith(sendArgs(`${sinkId}/GOLD`, 1), ["balance_not_checked"]);
    } finally {
      proxy.rule = null;
    }
  });

  it("for people: exit 0 and one warning line on stderr", async () => {
    try {
      const r = await relay.run(sendArgs(`${depotId}/GOLD`, 1000), depot);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.split("\n").filter((l) => l.startsWith("warning: ")).length, 1, r.stderr);
    } finally {
      await relay.ok(["reset", "--hard", "origin"], depot);
    }
  });
});
