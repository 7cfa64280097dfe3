/**
 * The limits that absorb hostile load (docs/security.md): each identity's (each address's,
 * anonymously) budget of expensive work answers 429 RATE_LIMITED `work_budget` with
 * Retry-After once spent, without touching other callers; anonymous WebSocket connections
 * per address are capped (429 on the upgrade), and a connection that authenticates stops
 * counting against the cap; `--check-budget` sets the visits of one request's checks.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WebSocket } from "ws";
import { signRequest } from "../../src/auth/signRequest.js";
import { HubSocket } from "../../src/client/HubSocket.js";
import type { ContractError } from "../../src/contract/ContractError.js";
import { cycleModel, heavyRules, report, STORES, startHostileHub } from "./support/hostileLoad.js";
import { Party } from "./support/party.js";
import { Rng } from "./support/seeded.js";

/** Opens an anonymous `/ws`; resolves with the socket once its hello arrived, or the refusal's status. */
function anonymousSocket(url: string): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once("message", () => resolve(ws));
  });
}

for (const kind of STORES) {
  describe(`hostile load: limits (${kind})`, { timeout: 300_000 }, () => {
    it("a spent work budget answers 429 work_budget with Retry-After, for that identity only", async () => {
      const hub = await startHostileHub(kind, ["--work-budget", "300"]);
      const rng = new Rng(5);
      const attacker = new Party(rng);
      const honest = new Party(rng);
      await attacker.register(hub.url);
      await honest.register(hub.url);
      const heavy = { model: cycleModel(3000), rules: heavyRules(20, 3000) };
      // The first heavy request runs (and is refused for its size): it spends far more than 300 ms.
      await assert.rejects(attacker.client(hub.url).createContract(heavy), (e: ContractError) => {
        return e.code === "VALIDATION_FAILED" && e.details?.reason === "check_budget";
      });
      const body = JSON.stringify({ ...heavy, rules: heavyRules(1, 3000) });
      const res = await fetch(`${hub.url}/contracts`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...signRequest(attacker.accessSeed, { method: "POST", url: "/contracts", body }),
        },
        body,
      });
      const refusal = (await res.json()) as { code: string; details: { reason: string; retry_after: number } };
      const retryAfter = Number(res.headers.get("retry-after"));
      // Others are not affected; cheap requests of the attacker neither.
      const other = await honest.client(hub.url).createContract({ model: cycleModel(50), rules: heavyRules(1, 50) });
      const cheap = await attacker.client(hub.url).createContract({ model: null, rules: [] });
      await hub.stop();
      report(`work-budget ${kind}`, { status: res.status, retryAfter });
      assert.equal(res.status, 429);
      assert.equal(refusal.code, "RATE_LIMITED");
      assert.equal(refusal.details.reason, "work_budget");
      assert.ok(retryAfter >= 1 && retryAfter === refusal.details.retry_after);
      assert.match(other.contract_id, /^c_/);
      assert.match(cheap.contract_id, /^c_/);
    });

    it("--check-budget sets the visits one request's checks may spend: past it 422 check_budget naming it", async () => {
      const hub = await startHostileHub(kind, ["--check-budget", "20000"]);
      const party = new Party(new Rng(7));
      await party.register(hub.url);
      const client = party.client(hub.url);
      // About 300² visits: within the default budget, over this hub's.
      const refused = await client.createContract({ model: cycleModel(300), rules: heavyRules(1, 300) }).then(
        () => null,
        (err: ContractError) => err,
      );
      const small = await client.createContract({ model: cycleModel(20), rules: heavyRules(1, 20) });
      await hub.stop();
      assert.equal(refused?.code, "VALIDATION_FAILED");
      assert.equal(refused?.details?.reason, "check_budget");
      assert.equal(refused?.details?.budget, 20_000);
      assert.match(small.contract_id, /^c_/);
    });

    it("anonymous sockets per address are capped; an authenticated one frees its place", async () => {
      const hub = await startHostileHub(kind, ["--anonymous-sockets", "3"]);
      const party = new Party(new Rng(6));
      await party.register(hub.url);
      const open = await Promise.all([1, 2, 3].map(() => anonymousSocket(hub.url)));
      assert.ok(open.every((s) => s instanceof WebSocket));
      assert.equal(await anonymousSocket(hub.url), 429);
      // HubSocket upgrades anonymously and then authenticates: it takes a place, then frees it.
      const first = open[0] as WebSocket;
      await new Promise((r) => {
        first.once("close", r);
        first.close();
      });
      // The hub frees the place when it sees the TCP connection close: retry briefly until it did.
      let authed: HubSocket | undefined;
      for (let i = 0; authed === undefined; i++) {
        authed = await HubSocket.connect(hub.url, party.accessSeed).catch((err) => {
          if (i > 100) throw err;
          return new Promise<undefined>((r) => setTimeout(() => r(undefined), 20));
        });
      }
      const fourth = await anonymousSocket(hub.url);
      assert.ok(fourth instanceof WebSocket, `expected a fourth anonymous socket, got ${String(fourth)}`);
      assert.equal(await anonymousSocket(hub.url), 429);
      authed.close();
      for (const s of [...open.slice(1), fourth]) (s as WebSocket).close();
      await hub.stop();
    });
  });
}
