/**
 * Hostile load, attack 3 (docs/security.md, weak keys): against real hub processes on SQLite
 * and on PostgreSQL, every weak key (the small-order encodings derived from the curve, plus
 * non-canonical and off-curve ones) is offered at every place a key enters: register
 * (identity and access key), readers, grants, a genesis owner, an `.id` value, an
 * `ed25519:` signer with the "universal" signature, an oracle key, and JSON-RPC register.
 * Each is refused with `weak_key` under its documented code and nothing is stored. The long
 * form also offers a few hundred random off-curve encodings.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { signRequest } from "../../src/auth/signRequest.js";
import { buildWireCommit } from "../../src/contract/buildWireCommit.js";
import { generateKeyPair } from "../../src/contract/keys.js";
import { decodeLenient, encodeRaw, P, smallOrderEncodings } from "../support/edwards25519.js";
import { killAllHubs, startHub } from "../support/hubProcess.js";
import { testDatabase } from "../support/pg.js";
import { rawRequest } from "./support/faults.js";
import { Party } from "./support/party.js";
import { harnessSeed, LONG, Rng } from "./support/seeded.js";

const rng = new Rng(harnessSeed("hostile-load-weak-keys"));
const base = mkdtempSync(join(tmpdir(), "hostile-weak-"));
const db = await testDatabase();
const figures: Record<string, unknown> = {};
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
  console.log(`[hostile-load-weak-keys] figures ${JSON.stringify(figures)}`);
});

/** Off-curve encodings: random y (below p) that give no curve point. */
function offCurve(n: number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const y = BigInt(`0x${Buffer.from(rng.bytes(32)).toString("hex")}`) % P;
    const bytes = encodeRaw(y, rng.int(0, 1));
    if (decodeLenient(bytes) === null) out.push(bytes.toString("hex"));
  }
  return out;
}

const WEAK = [
  ...smallOrderEncodings(),
  encodeRaw(P, 0).toString("hex"),
  encodeRaw(P + 5n, 1).toString("hex"),
  ...offCurve(LONG ? 300 : 3),
];
const UNIVERSAL = `01${"00".repeat(63)}`;
const ZERO_SIG = "00".repeat(64);

async function attack(store: "sqlite" | "postgres"): Promise<void> {
  const args = store === "postgres" ? ["--database-url", db.url] : [];
  const hub = await startHub(join(base, store), args);
  const owner = new Party(rng);
  await owner.register(hub.url);
  const client = owner.client(hub.url);
  await client.push("seats", [owner.genesis("seats")]);
  const { head } = await client.getState("seats");
  const before = JSON.stringify(await client.listContracts());
  const strong = generateKeyPair().publicKey.toString("hex");
  const seen: Record<string, number> = {};

  const expect = async (
    what: string,
    status: number,
    code: string,
    path: string,
    body: unknown,
    signed = true,
  ): Promise<void> => {
    const answer = await rawRequest(hub.url, "POST", path, body, signed ? owner.accessSeed : undefined);
    assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.code, code, what);
    assert.equal(answer.body.details?.reason, "weak_key", `${what}: ${JSON.stringify(answer.body)}`);
    seen[what] = (seen[what] ?? 0) + 1;
  };

  for (const [i, weak] of WEAK.entries()) {
    const reg = { identity_signature: ZERO_SIG, access_signature: ZERO_SIG };
    await expect(
      "register identity",
      400,
      "INVALID_REQUEST",
      "/register",
      { ...reg, identity_pubkey: weak, access_pubkey: strong },
      false,
    );
    await expect(
      "register access key",
      400,
      "INVALID_REQUEST",
      "/register",
      { ...reg, identity_pubkey: strong, access_pubkey: weak },
      false,
    );
    await expect("reader", 400, "INVALID_REQUEST", "/contracts", { model: null, rules: [], readers: [weak] });
    await expect("grant", 400, "INVALID_REQUEST", "/contracts/seats/grant", {
      identity: `ed25519:${weak}`,
      role: "writer",
    });
    // Built by hand: the toolkit's genesisData refuses a weak owner before it is ever sent.
    const genesisOp = { method: "genesis" as const, value: { model: null, rules: [], owner: `ed25519:${weak}` } };
    const genesis = buildWireCommit(`g${i}`, null, [genesisOp]);
    await expect("genesis owner", 422, "VALIDATION_FAILED", `/contracts/g${i}/push`, { commits: [genesis] });
    const seat = buildWireCommit("seats", head, [{ method: "post", path: "/users/buyer.id", value: weak }]);
    await expect(".id value", 422, "VALIDATION_FAILED", "/contracts/seats/push", { commits: [seat] });
    const forged = buildWireCommit("seats", head, [{ method: "post", path: "/notes/x.text", value: "x" }]);
    forged.head.signatures = { [`ed25519:${weak}`]: UNIVERSAL };
    await expect("signer key", 422, "VALIDATION_FAILED", "/contracts/seats/push", { commits: [forged] });
    const attested = buildWireCommit("seats", head, [{ method: "post", path: "/notes/y.text", value: "y" }]);
    attested.head.attestations = [{ oracle: `ed25519:${weak}`, claim: "price", value: 1, signature: UNIVERSAL }];
    await expect("oracle key", 422, "VALIDATION_FAILED", "/contracts/seats/push", { commits: [attested] });

    const rpcBody = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "register",
      params: { ...reg, identity_pubkey: weak, access_pubkey: strong },
    });
    const res = await fetch(hub.rpcUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...signRequest(owner.accessSeed, { method: "POST", url: "/", body: rpcBody }),
      },
      body: rpcBody,
    });
    const rpc = (await res.json()) as {
      error?: { code: number; data?: { code: string; details?: { reason?: string } } };
    };
    assert.equal(rpc.error?.code, -32602, JSON.stringify(rpc));
    assert.equal(rpc.error?.data?.details?.reason, "weak_key");
    seen["JSON-RPC register"] = (seen["JSON-RPC register"] ?? 0) + 1;
  }
  // Nothing was stored: the same contracts, the same heads.
  assert.equal(JSON.stringify(await client.listContracts()), before);
  figures[store] = { weakKeys: WEAK.length, refusals: seen };
}

describe("weak keys at every entry, on real hubs", { timeout: 600_000 }, () => {
  it("SQLite: every weak key refused with weak_key, nothing stored", () => attack("sqlite"));
  it("PostgreSQL: every weak key refused with weak_key, nothing stored", () => attack("postgres"));
});
