/**
 * Weak keys as template parameters (PROTOCOL §18: refused wherever a key enters, with
 * `details.reason: "weak_key"`): a party key, a key of a key list, the owner, in
 * instantiateTemplate and through `POST /contracts {template, params}` over real HTTP. The
 * status stays the template route's for a bad parameter (400 INVALID_REQUEST, naming it), and
 * the parameter is named once in the message.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import { assertContractError } from "../src/contract/assertContractError.js";
import { instantiateTemplate } from "../src/templates/index.js";
import { Party } from "./support/Party.js";
import { testApp } from "./support/testApps.js";

const buyer = new Party("buyer");
const seller = new Party("seller");
/** Small-order points: the identity (canonical and with the sign bit) and a point of order 8. */
const WEAK = [
  `01${"00".repeat(31)}`,
  `01${"00".repeat(30)}80`,
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
];

/** How often `text` occurs in `message`. */
const count = (message: string, text: string) => message.split(text).length - 1;

test("a weak key in a key parameter, a key list or the owner is weak_key naming the parameter once", () => {
  for (const weak of WEAK) {
    for (const spelling of [weak, `ed25519:${weak}`]) {
      const party = assertContractError(
        () => instantiateTemplate("escrow", { buyer: spelling, seller: seller.key }),
        "INVALID_REQUEST",
        "weak_key",
      );
      assert.equal(party.param, "buyer");
      const listed = assertContractError(
        () => instantiateTemplate("multisig", { signers: [buyer.key, spelling, seller.key] }),
        "INVALID_REQUEST",
        "weak_key",
      );
      assert.equal(listed.param, "signers");
      const owner = assertContractError(
        () => instantiateTemplate("escrow", { buyer: buyer.key, seller: seller.key }, { owner: spelling }),
        "INVALID_REQUEST",
        "weak_key",
      );
      assert.equal(owner.param, "owner");
    }
  }
  try {
    instantiateTemplate("escrow", { buyer: WEAK[0], seller: seller.key });
    assert.fail("accepted a weak key");
  } catch (err) {
    assert.equal(count((err as Error).message, "buyer"), 1, (err as Error).message);
  }
  // Malformed keys stay param_invalid, also named once.
  try {
    instantiateTemplate("escrow", { buyer: "abc", seller: seller.key });
    assert.fail("accepted a malformed key");
  } catch (err) {
    assert.equal((err as { details?: { reason?: string } }).details?.reason, "param_invalid");
    assert.equal(count((err as Error).message, "buyer"), 1, (err as Error).message);
  }
});

test("POST /contracts {template, params} with a weak party key is 400 weak_key and creates nothing", async () => {
  const t = await testApp("rest");
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  const port = (t.app.server.address() as { port: number }).port;
  try {
    const before = await t.hub.listContracts(t.owner.caller, {});
    for (const weak of WEAK) {
      const raw = JSON.stringify({ template: "escrow", params: { buyer: weak, seller: seller.key } });
      const res = await fetch(`http://127.0.0.1:${port}/contracts`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...signRequest(t.owner.access.seed, { method: "POST", url: "/contracts", body: raw }),
        },
        body: raw,
      });
      const text = await res.text();
      assert.equal(res.status, 400, text);
      const body = JSON.parse(text) as { code: string; details: Record<string, unknown> };
      assert.equal(body.code, "INVALID_REQUEST");
      assert.equal(body.details.reason, "weak_key");
      assert.equal(body.details.param, "buyer");
    }
    assert.equal((await t.hub.listContracts(t.owner.caller, {})).total, before.total);
  } finally {
    await t.close();
  }
});
