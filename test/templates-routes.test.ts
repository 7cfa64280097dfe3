import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { registrationBody, signRequest } from "../src/auth/signRequest.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { buildRestApp } from "../src/http/buildRestApp.js";
import type { Hub } from "../src/hub/Hub.js";
import { hubOperations } from "../src/synthesis/hubOperations.js";
import type { Env } from "../src/synthesis/providerFromEnv.js";
import { TEMPLATE_CATALOGUE } from "../src/templates/templateCatalogue.js";
import { cleanup, openHub } from "./hub-fixtures.js";

/** The REST app over a real hub (SQLite in a temporary directory) wired as `contract-hub start` wires it. */
async function restApp(env: Env): Promise<{ app: FastifyInstance; hub: Hub }> {
  const hub = await openHub(undefined, { templates: TEMPLATE_CATALOGUE, synthesis: hubOperations(env) });
  const app = await buildRestApp({
    hub,
    authenticator: new Authenticator({ store: hub.store }),
    registry: new AccessRegistry({ store: hub.store }),
    rateLimit: 0,
    logger: false,
  });
  await app.ready();
  return { app, hub };
}

describe("templates and synthesis through the REST routes", () => {
  let app: FastifyInstance;
  let hub: Hub;
  const identity = generateKeyPair();
  const access = generateKeyPair();
  const seller = generateKeyPair();
  const buyerKey = identity.publicKey.toString("hex");

  const signed = (url: string, body: unknown) => {
    const raw = JSON.stringify(body);
    const headers = {
      ...signRequest(access.seed, { method: "POST", url, body: raw }),
      "content-type": "application/json",
    };
    return app.inject({ method: "POST", url, headers, payload: raw });
  };

  before(async () => {
    ({ app, hub } = await restApp({}));
    await new AccessRegistry({ store: hub.store }).register(registrationBody(identity.seed, access.seed));
  });
  after(async () => {
    await app.close();
    await hub.close();
    cleanup();
  });

  it("serves the catalogue and one template, 404 for an unknown one", async () => {
    const list = (await app.inject({ url: "/templates" })).json();
    assert.equal(list.length, 6);
    assert.equal("model" in list[0], false);
    const escrow = await app.inject({ url: "/templates/escrow" });
    assert.equal(escrow.statusCode, 200);
    assert.match(escrow.json().model, /init -> deposited \[\+DEPOSIT \+signed_by\(\/users\/buyer\.id\)\]/);
    const missing = await app.inject({ url: "/templates/lease" });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, "NOT_FOUND");
  });

  it("creates a contract from a template with params, and names a missing param with 400", async () => {
    const created = await signed("/contracts", {
      template: "escrow",
      params: { buyer: `ed25519:${buyerKey}`, seller: seller.publicKey.toString("hex") },
    });
    assert.equal(created.statusCode, 201, created.body);
    const state = (await app.inject({ url: `/contracts/${created.json().contract_id}/state` })).json();
    assert.equal(state.current_state, "init");
    assert.deepEqual(
      state.valid_actions.map((a: { action: string; required_signer: string }) => [a.action, a.required_signer]),
      [["DEPOSIT", "/users/buyer.id"]],
    );
    const contract = (await app.inject({ url: `/contracts/${created.json().contract_id}` })).json();
    assert.ok(contract.rules.length > 0);
    const bad = await signed("/contracts", { template: "escrow", params: { buyer: buyerKey } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, "INVALID_REQUEST");
    assert.equal(bad.json().details.param, "seller");
  });

  it("refuses a model, rules or a template's own state path beside a template (400 template_conflict), and creates nothing", async () => {
    const params = { buyer: `ed25519:${buyerKey}`, seller: seller.publicKey.toString("hex") };
    const { total } = (await app.inject({ url: "/contracts" })).json();
    assert.equal(typeof total, "number");
    const cases: [Record<string, unknown>, string, string | undefined][] = [
      [{ model: "model m { initial a\n a -> a [] }" }, "model", undefined],
      [{ rules: ["always(true)"] }, "rules", undefined],
      [{ state: { "/users/seller.id": buyerKey } }, "state", "/users/seller.id"],
    ];
    for (const [extra, field, path] of cases) {
      const res = await signed("/contracts", { template: "escrow", params, ...extra });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(
        [res.json().code, res.json().details.reason, res.json().details.field, res.json().details.path],
        ["INVALID_REQUEST", "template_conflict", field, path],
      );
    }
    assert.equal((await app.inject({ url: "/contracts" })).json().total, total);
    // A path the template does not set may be added.
    const noted = await signed("/contracts", { template: "escrow", params, state: { "/notes/ref.text": "PO-17" } });
    assert.equal(noted.statusCode, 201, noted.body);
  });

  it("synthesizes from patterns for anyone when no key is configured", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/contracts/synthesize",
      payload: { description: "Alice buys a bike from Bob" },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().source, "patterns");
    const unknown = await app.inject({
      method: "POST",
      url: "/contracts/synthesize",
      payload: { description: "Write a haiku about the sea" },
    });
    assert.equal(unknown.statusCode, 503);
    assert.equal(unknown.json().code, "UNAVAILABLE");
  });

  it("requires authentication when a language-model key is configured", async () => {
    const keyed = await restApp({ ANTHROPIC_API_KEY: "sk-never-used", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" });
    try {
      const res = await keyed.app.inject({
        method: "POST",
        url: "/contracts/synthesize",
        payload: { description: "Alice buys a bike from Bob" },
      });
      assert.equal(res.statusCode, 401);
      // The reason every unsigned write gets (docs/api.md), not one of synthesis's own.
      assert.deepEqual([res.json().code, res.json().details.reason], ["UNAUTHORIZED", "unauthenticated"]);
    } finally {
      await keyed.app.close();
      await keyed.hub.close();
    }
  });
});
