import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { assertContractError } from "./assertContractError.js";
import { generateKeyPair, sign } from "./keys.js";
import { VerifyPool } from "./VerifyPool.js";

const alice = generateKeyPair();
const bob = generateKeyPair();

/** A random 32-byte message and its signature by `key`, as hex. */
function signed(key = alice) {
  const hash = randomBytes(32);
  return { key: key.publicKey.toString("hex"), hash: hash.toString("hex"), sig: sign(key.seed, hash).toString("hex") };
}

test("answers each signature in a burst with its own verdict, over several chunks and workers", async () => {
  const pool = new VerifyPool(2);
  try {
    const cases = Array.from({ length: 300 }, (_, i) => {
      const s = signed(i % 2 === 0 ? alice : bob);
      // Every third is wrong: another key, another message, or a flipped signature bit.
      if (i % 3 === 1) {
        if (i % 9 === 1) return { ...s, key: (i % 2 === 0 ? bob : alice).publicKey.toString("hex"), want: false };
        if (i % 9 === 4) return { ...s, hash: randomBytes(32).toString("hex"), want: false };
        const sig = Buffer.from(s.sig, "hex");
        sig[5]! ^= 1;
        return { ...s, sig: sig.toString("hex"), want: false };
      }
      return { ...s, want: true };
    });
    const verdicts = await Promise.all(cases.map((c) => pool.verifyHash(c.key, c.hash, c.sig)));
    assert.deepEqual(
      verdicts,
      cases.map((c) => c.want),
    );
  } finally {
    await pool.close();
  }
});

test("refuses a weak key on the calling thread with weak_key, as verify does", async () => {
  const pool = new VerifyPool(1);
  try {
    const identityPoint = `01${"00".repeat(31)}`;
    const universal = `01${"00".repeat(63)}`;
    await assert.rejects(pool.verifyHash(identityPoint, randomBytes(32).toString("hex"), universal), (err) => {
      assertContractError(
        () => {
          throw err;
        },
        "VALIDATION_FAILED",
        "weak_key",
      );
      return true;
    });
  } finally {
    await pool.close();
  }
});

test("a closed pool's pending signatures reject instead of hanging", async () => {
  const pool = new VerifyPool(1);
  const s = signed();
  assert.equal(await pool.verifyHash(s.key, s.hash, s.sig), true); // worker started
  // 64 fill a chunk, which goes to the worker at once; the 65th waits in the next one.
  const pending = Array.from({ length: 65 }, () => pool.verifyHash(s.key, s.hash, s.sig));
  const settled = Promise.allSettled(pending);
  await pool.close();
  const outcomes = await settled;
  assert.deepEqual(
    outcomes.map((o) => o.status),
    pending.map(() => "rejected"),
  );
  for (const o of outcomes) assert.match(String((o as PromiseRejectedResult).reason), /verification worker exited/);
});

test("an idle pool does not hold the process open, and a busy one does until its answer", () => {
  // A script that awaits one verification and prints it, then has nothing left to do: it must
  // print (the worker held the process while busy) and exit by itself (not held once idle).
  const s = signed();
  const script = `
    import { VerifyPool } from ${JSON.stringify(new URL("./VerifyPool.ts", import.meta.url).href)};
    const ok = await new VerifyPool(1).verifyHash(${JSON.stringify(s.key)}, ${JSON.stringify(s.hash)}, ${JSON.stringify(s.sig)});
    console.log("verdict", ok);`;
  const res = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, /verdict true/);
});
