/**
 * The public Wycheproof ed25519 vectors (vendored in test/fixtures/wycheproof/, see its
 * README.md) through the hub's own verification (`verify` and `verifyAsync` of
 * src/contract/keys.ts, which every signature check of the hub goes through): every "valid"
 * vector verifies, every "invalid" one is refused (false, or INVALID_REQUEST for a
 * signature of the wrong length, as the hex decoders of the hub refuse it before). A valid
 * vector whose key the hub refuses as weak would be listed in WEAK_VALID; the file has none,
 * and the test fails if that changes unnoticed. Its keys all pass the hub's key-entry check;
 * its signatures offered under the small-order keys (which the file does not cover) are
 * refused with `weak_key` by verification and by `POST /register`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { assertContractError, assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { ContractError } from "../src/contract/ContractError.js";
import { verify, verifyAsync } from "../src/contract/keys.js";
import { assertStrongKey, isWeakPublicKey } from "../src/contract/weakPublicKey.js";
import { smallOrderEncodings } from "./support/edwards25519.js";
import { type TestApp, testApp } from "./support/testApps.js";

interface Vector {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: "valid" | "invalid" | "acceptable";
}
interface Group {
  publicKey: { pk: string };
  tests: Vector[];
}
const FILE = JSON.parse(readFileSync(new URL("fixtures/wycheproof/ed25519_test.json", import.meta.url), "utf8")) as {
  algorithm: string;
  numberOfTests: number;
  testGroups: Group[];
};
const VECTORS = FILE.testGroups.flatMap((g) => g.tests.map((v) => ({ ...v, pk: g.publicKey.pk })));

/** tcIds of "valid" vectors whose key the hub refuses as weak (none in this file). */
const WEAK_VALID: number[] = [];

/** What the hub's verification answers: "true", "false", or "CODE/reason" when it throws. */
function outcome(run: () => boolean): string {
  try {
    return String(run());
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    return `${err.code}/${String(err.details?.reason)}`;
  }
}
async function outcomeAsync(run: () => Promise<boolean>): Promise<string> {
  try {
    return String(await run());
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    return `${err.code}/${String(err.details?.reason)}`;
  }
}

describe("Wycheproof ed25519 vectors", () => {
  it("the vendored file is the one described (EDDSA, 151 vectors, nothing merely acceptable)", () => {
    assert.equal(FILE.algorithm, "EDDSA");
    assert.equal(VECTORS.length, FILE.numberOfTests);
    assert.equal(VECTORS.length, 151);
    assert.equal(VECTORS.filter((v) => v.result === "acceptable").length, 0);
  });

  it("no vector's key is weak, and every key passes the hub's key-entry check", () => {
    const weak = VECTORS.filter((v) => isWeakPublicKey(Buffer.from(v.pk, "hex"))).map((v) => v.tcId);
    assert.deepEqual(
      weak.filter((id) => VECTORS.find((v) => v.tcId === id)!.result === "valid"),
      WEAK_VALID,
    );
    assert.deepEqual(weak, []);
    for (const g of FILE.testGroups) assertStrongKey(Buffer.from(g.publicKey.pk, "hex"), "identity");
  });

  it("every valid vector verifies and every invalid one is refused (verify and verifyAsync)", async () => {
    const tally: Record<string, number> = {};
    for (const v of VECTORS) {
      const key = Buffer.from(v.pk, "hex");
      const msg = Buffer.from(v.msg, "hex");
      const sig = Buffer.from(v.sig, "hex");
      const sync = outcome(() => verify(key, msg, sig));
      const async = await outcomeAsync(() => verifyAsync(key, msg, sig));
      const what = `tcId ${v.tcId} (${v.result}, ${v.flags.join(",")}: ${v.comment})`;
      assert.equal(async, sync, `${what}: verify and verifyAsync disagree`);
      tally[`${v.result} ${sync}`] = (tally[`${v.result} ${sync}`] ?? 0) + 1;
      if (v.result === "valid") {
        if (WEAK_VALID.includes(v.tcId)) assert.equal(sync, "VALIDATION_FAILED/weak_key", what);
        else assert.equal(sync, "true", what);
      } else if (sig.length !== 64) {
        // Truncated, padded or compressed signatures: refused as the wrong length.
        assert.equal(sync, "INVALID_REQUEST/signature_wrong_length", what);
      } else {
        assert.equal(sync, "false", what);
      }
    }
    assert.deepEqual(tally, {
      "valid true": 88,
      "invalid false": 51,
      "invalid INVALID_REQUEST/signature_wrong_length": 12,
    });
  });
});

describe("Wycheproof signatures under small-order keys", () => {
  let t: TestApp;
  before(async () => {
    t = await testApp("rest");
  });
  after(() => t.close());

  // The file's edge-case signatures (R or S zero or the group order, and so on) are the ones a
  // small-order key could make verify without a private key.
  const edgeCases = VECTORS.filter((v) => v.flags.includes("InvalidSignature") && v.sig.length === 128);

  it("verification refuses each with weak_key (the raw check would not be asked)", async () => {
    assert.ok(edgeCases.length >= 10, `only ${edgeCases.length} edge-case signatures`);
    for (const hex of smallOrderEncodings()) {
      const key = Buffer.from(hex, "hex");
      for (const v of edgeCases) {
        const msg = Buffer.from(v.msg, "hex");
        const sig = Buffer.from(v.sig, "hex");
        assertContractError(() => verify(key, msg, sig), "VALIDATION_FAILED", "weak_key");
        await assertContractErrorAsync(() => verifyAsync(key, msg, sig), "VALIDATION_FAILED", "weak_key");
      }
    }
  });

  it("POST /register refuses a small-order identity or access key with 400 weak_key and stores nothing", async () => {
    const strong = FILE.testGroups[0]!.publicKey.pk;
    const edge = edgeCases[0]!.sig;
    for (const weak of smallOrderEncodings()) {
      for (const [identity, access, field] of [
        [weak, strong, "identity_pubkey"],
        [strong, weak, "access_pubkey"],
      ] as const) {
        const res = await t.app.inject({
          method: "POST",
          url: "/register",
          payload: {
            identity_pubkey: identity,
            access_pubkey: access,
            identity_signature: edge,
            access_signature: edge,
          },
        });
        assert.equal(res.statusCode, 400, `${field} ${weak}: ${res.body}`);
        const body = res.json() as { code: string; details?: { reason?: string } };
        assert.equal(body.code, "INVALID_REQUEST");
        assert.equal(body.details?.reason, "weak_key", `${field} ${weak}: ${res.body}`);
      }
      assert.equal(await t.hub.store.getAccessKey(weak), null, `${weak} was stored as an access key`);
    }
  });
});
