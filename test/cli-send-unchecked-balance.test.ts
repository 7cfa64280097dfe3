/**
 * `send` when the hub answers about the destination but not about the balance, every step a
 * real process against a real hub on loopback, reached through a real HTTP proxy that
 * forwards every request except the one for the sender's books (GET /contracts/:id/assets),
 * which it answers with an error. The SEND is recorded (exit 0) with a warning, code
 * `balance_not_checked`, as when `--no-recipient-check` meets a hub that cannot be asked; once
 * the proxy forwards that route again, the same overdraw is refused.
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

before(async () => {
  banks = await banksBehindProxy("send-unchecked-balance");
  ({ relay, proxy, depot, depotId, sinkId } = banks);
  await relay.ok(["create", "--asset", "GOLD", "--quantity", "10"], depot);
  await relay.ok(["push"], depot);
});
after(async () => banks?.close());

const sendArgs = (amount: number, ...more: string[]) => [
  "send",
  "--asset",
  "GOLD",
  "--to",
  sinkId,
  "--amount",
  String(amount),
  ...more,
];
const logLength = async () => (await relay.ok<unknown[]>(["log"], depot)).length;

/** The books of the depot answer `status`; every other request is forwarded as it is. */
function booksFail(status: number): void {
  proxy.rule = (path, up) =>
    path === `/contracts/${depotId}/assets`
      ? json(status, { error: "books unavailable", code: "INTERNAL_ERROR", details: {} })
      : up;
}

describe("send when the hub shows the destination but not the balance", () => {
  it("records the SEND with a balance_not_checked warning, exit 0", async () => {
    booksFail(500);
    const before = await logLength();
    // 1000 of the 10 held: only the push can refuse it now, and the warning says so.
    const sent = await relay.ok<SendDoc>(sendArgs(1000), depot);
    assert.equal(sent.warnings?.length, 1);
    assert.deepEqual(sent.warning_codes, ["balance_not_checked"]);
    assert.equal(await logLength(), before + 1);

    // For people: exit 0 and one warning line on stderr.
    const human = await relay.run(sendArgs(1), depot);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stderr.split("\n").filter((l) => l.startsWith("warning: ")).length, 1, human.stderr);
    assert.equal(await logLength(), before + 2);
    await relay.ok(["reset", "--hard", "origin"], depot);
  });

  it("warns the same for an answer that is not the hub's (a 502 of a gateway)", async () => {
    proxy.rule = (path, up) =>
      path === `/contracts/${depotId}/assets` ? { status: 502, type: "text/html", body: "<h1>Bad Gateway</h1>" } : up;
    const sent = await relay.ok<SendDoc>(sendArgs(1), depot);
    assert.deepEqual(sent.warning_codes, ["balance_not_checked"]);
    await relay.ok(["reset", "--hard", "origin"], depot);
  });

  it("with the books answered again, the same overdraw is refused and nothing is written", async () => {
    proxy.rule = null;
    await relay.ok(["reset", "--hard", "origin"], depot);
    const before = await logLength();
    const r = await relay.run([...sendArgs(1000), "--json"], depot);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const over = r.json<ErrorDoc>();
    assert.deepEqual(
      [over.code, over.details?.reason, over.details?.available],
      ["VALIDATION_FAILED", "insufficient_balance", 10],
    );
    assert.equal(await logLength(), before);
    const fine = await relay.ok<SendDoc>(sendArgs(1), depot);
    assert.deepEqual(["warnings" in fine, "warning_codes" in fine], [false, false]);
  });

  it("--offline asks nothing and warns of nothing, whatever the hub would answer", async () => {
    booksFail(500);
    const sent = await relay.ok<SendDoc>(sendArgs(1, "--offline"), depot);
    assert.deepEqual(["warnings" in sent, "warning_codes" in sent], [false, false]);
    proxy.rule = null;
  });
});
