/**
 * The authorization matrix (anchors B.2 #5), generated from the router's own route list
 * (`app.registeredRoutes`, filled by fastify's onRoute hook, HEAD routes included): every
 * route × {no auth, bad signature, expired timestamp, replayed nonce, revoked key, stranger,
 * reader, writer, owner} × {public, private contract} gets its expected status over a real
 * hub. A route without an entry here, or an entry without a route, fails the test.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, test } from "node:test";
import { registrationBody, signRequest } from "../src/auth/signRequest.js";
import { signCommit } from "../src/contract/commitHash.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type Principal, postsAfter, type TestApp, testApp } from "./support/testApps.js";

type Kind = "none" | "badSig" | "expired" | "replayed" | "revoked" | "stranger" | "reader" | "writer" | "owner";
type Visibility = "public" | "private";
const KINDS: Kind[] = ["none", "badSig", "expired", "replayed", "revoked", "stranger", "reader", "writer", "owner"];
const BAD = new Set<Kind>(["badSig", "expired", "replayed", "revoked"]);
const unauthenticated = (k: Kind) => k === "none" || BAD.has(k);

/** The expected status of one cell. */
type Rule = (k: Kind, v: Visibility) => number;
/** Headers are ignored: the route answers everyone alike. */
const open =
  (ok: number): Rule =>
  () =>
    ok;
/** Anonymous allowed; credentials, when present, must verify. */
const optional =
  (ok: number): Rule =>
  (k) =>
    BAD.has(k) ? 401 : ok;
const required =
  (ok: number): Rule =>
  (k) =>
    unauthenticated(k) ? 401 : ok;
/** Public to read; private only to owner, writers, parties and readers (404 to others). */
const read =
  (ok: number): Rule =>
  (k, v) =>
    BAD.has(k) ? 401 : v === "private" && (k === "none" || k === "stranger") ? 404 : ok;
const write =
  (ok: number): Rule =>
  (k, v) =>
    unauthenticated(k) ? 401 : k === "stranger" ? (v === "private" ? 404 : 403) : k === "reader" ? 403 : ok;
const ownerOnly =
  (ok: number): Rule =>
  (k, v) =>
    unauthenticated(k) ? 401 : k === "stranger" ? (v === "private" ? 404 : 403) : k === "owner" ? ok : 403;

interface Cell {
  contract: string;
  genesis: string;
  principal: Principal;
}
interface Entry {
  rule: Rule;
  /** The request of a cell (URL and body), built fresh so every allowed write can succeed. */
  request(c: Cell): Promise<{ url: string; body?: unknown }> | { url: string; body?: unknown };
}

let t: TestApp;
let stranger: Principal;
let reader: Principal;
let writer: Principal;
let revoked: Principal;
let grantee: Principal;
const contracts: Record<Visibility, { id: string; genesis: string }> = {} as never;
let serial = 0;
const asset = readdirSync("web/dist/assets")[0];

const MATRIX: Record<string, Entry> = {
  "GET /health": { rule: open(200), request: () => ({ url: "/health" }) },
  "GET /contracts": { rule: optional(200), request: () => ({ url: "/contracts" }) },
  "POST /contracts": { rule: required(201), request: () => ({ url: "/contracts", body: { model: null, rules: [] } }) },
  "POST /contracts/synthesize": {
    rule: optional(200),
    request: () => ({ url: "/contracts/synthesize", body: { description: "an escrow between a buyer and a seller" } }),
  },
  "GET /contracts/:id": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}` }) },
  "GET /contracts/:id/state": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}/state` }) },
  "GET /contracts/:id/log": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}/log?limit=5` }) },
  "GET /contracts/:id/commits": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}/commits` }) },
  "POST /contracts/:id/commits": {
    rule: write(201),
    request: (c) => ({
      url: `/contracts/${c.contract}/commits`,
      body: { contract_id: c.contract, method: "post", path: `/notes/m${serial++}.text`, value: "v" },
    }),
  },
  "GET /contracts/:id/commits/:hash": {
    rule: read(200),
    request: (c) => ({ url: `/contracts/${c.contract}/commits/${c.genesis}` }),
  },
  "POST /contracts/:id/push": {
    rule: write(200),
    request: async (c) => {
      const { head } = await t.hub.getState(t.owner.caller, c.contract);
      return {
        url: `/contracts/${c.contract}/push`,
        body: { commits: postsAfter(c.contract, head, 1, `p${serial++}`) },
      };
    },
  },
  "GET /contracts/:id/pull": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}/pull?limit=2` }) },
  "POST /contracts/:id/grant": {
    rule: ownerOnly(200),
    request: (c) => ({ url: `/contracts/${c.contract}/grant`, body: { identity: grantee.key, role: "reader" } }),
  },
  "GET /contracts/:id/assets": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}/assets` }) },
  "GET /contracts/:id/incoming": { rule: read(200), request: (c) => ({ url: `/contracts/${c.contract}/incoming` }) },
  // These contracts have no model, so every proposal validates in full and is appended at once.
  "POST /contracts/:id/proposals": {
    rule: write(201),
    request: async (c) => ({ url: `/contracts/${c.contract}/proposals`, body: { commit: await nextCommit(c) } }),
  },
  "GET /contracts/:id/proposals": {
    rule: read(200),
    request: (c) => ({ url: `/contracts/${c.contract}/proposals?status=committed` }),
  },
  "GET /contracts/:id/proposals/:hash": {
    rule: read(200),
    request: async (c) => ({ url: `/contracts/${c.contract}/proposals/${await proposed(c)}` }),
  },
  // The signatures count, not the caller: anyone authenticated who may read the contract.
  "POST /contracts/:id/proposals/:hash/signatures": {
    rule: (k, v) => (unauthenticated(k) ? 401 : v === "private" && k === "stranger" ? 404 : 200),
    request: async (c) => {
      const hash = await proposed(c);
      return {
        url: `/contracts/${c.contract}/proposals/${hash}/signatures`,
        body: { signatures: { [`ed25519:${c.principal.key}`]: signCommit(hash, c.principal.identity.seed) } },
      };
    },
  },
  // The proposer (here the owner) may withdraw; the proposal is committed already, hence 409.
  "DELETE /contracts/:id/proposals/:hash": {
    rule: ownerOnly(409),
    request: async (c) => ({ url: `/contracts/${c.contract}/proposals/${await proposed(c)}` }),
  },
  "GET /templates": { rule: open(200), request: () => ({ url: "/templates" }) },
  "GET /templates/:id": { rule: open(200), request: () => ({ url: "/templates/escrow" }) },
  "POST /register": {
    rule: open(201),
    request: () => ({ url: "/register", body: registrationBody(generateKeyPair().seed, generateKeyPair().seed) }),
  },
  "GET /access": { rule: required(200), request: () => ({ url: "/access" }) },
  "POST /access/revoke": {
    // A spare key of the cell's own identity, so an allowed revocation never cuts the principal off.
    rule: required(200),
    request: async (c) => {
      const spare = generateKeyPair();
      await t.options.registry.register(registrationBody(c.principal.identity.seed, spare.seed));
      return { url: "/access/revoke", body: { access_key: spare.publicKey.toString("hex") } };
    },
  },
  "GET /checkpoint": { rule: open(200), request: () => ({ url: "/checkpoint" }) },
  "GET /checkpoint/key": { rule: open(200), request: () => ({ url: "/checkpoint/key" }) },
  // A private contract's commit is proven only to those who may read the contract.
  "GET /proofs/inclusion": { rule: read(200), request: (c) => ({ url: `/proofs/inclusion?hash=${c.genesis}` }) },
  "GET /proofs/consistency": { rule: open(200), request: () => ({ url: "/proofs/consistency?from=1" }) },
  "GET /openapi.json": { rule: open(200), request: () => ({ url: "/openapi.json" }) },
  // Not an upgrade request: the WebSocket route refuses it (after authentication, like any route).
  "GET /ws": { rule: optional(400), request: () => ({ url: "/ws" }) },
  "GET /": { rule: open(200), request: () => ({ url: "/" }) },
  "GET /assets/*": { rule: open(200), request: () => ({ url: `/assets/${asset}` }) },
};

/** A commit on the contract's current head. */
async function nextCommit(c: Cell) {
  const { head } = await t.hub.getState(t.owner.caller, c.contract);
  return postsAfter(c.contract, head, 1, `q${serial++}`)[0]!;
}

/** The hash of a proposal the owner made (committed at once on these model-less contracts). */
async function proposed(c: Cell): Promise<string> {
  const { proposal } = await t.hub.propose(t.owner.caller, c.contract, { commit: await nextCommit(c) });
  return proposal.hash;
}

/** The entry of a registered route; fastify's HEAD routes answer as their GET does. */
function entryOf(method: string, url: string): Entry | undefined {
  return MATRIX[`${method === "HEAD" ? "GET" : method} ${url}`];
}

before(async () => {
  t = await testApp();
  [stranger, reader, writer, revoked, grantee] = [
    await t.principal(),
    await t.principal(),
    await t.principal(),
    await t.principal(),
    await t.principal(),
  ];
  await t.options.registry.revoke(revoked.caller, { access_key: revoked.access.publicKey.toString("hex") });
  for (const v of ["public", "private"] as const) {
    const { id, head } = await t.contract({ model: null, rules: [], ...(v === "private" ? { readers: [] } : {}) });
    await t.hub.grant(t.owner.caller, id, { identity: reader.key, role: "reader" });
    await t.hub.grant(t.owner.caller, id, { identity: writer.key, role: "writer" });
    contracts[v] = { id, genesis: head };
  }
});
after(() => t.close());

/** Sends one cell's request with the credentials of `kind`. */
async function send(method: string, kind: Kind, req: { url: string; body?: unknown }) {
  const raw = req.body === undefined ? "" : JSON.stringify(req.body);
  const signer = { stranger, reader, writer, revoked, owner: t.owner }[kind as "owner"] ?? t.owner;
  let headers: Record<string, string> = {};
  if (kind !== "none") {
    const nonce = kind === "replayed" ? generateKeyPair().seed.toString("hex").slice(0, 32) : undefined;
    if (nonce) {
      // The nonce is spent by an earlier, valid request of the same key.
      const first = signRequest(signer.access.seed, { method: "GET", url: "/access", nonce });
      assert.equal((await t.app.inject({ url: "/access", headers: first })).statusCode, 200);
    }
    headers = signRequest(signer.access.seed, {
      method,
      url: req.url,
      body: raw,
      ...(nonce ? { nonce } : {}),
      ...(kind === "expired" ? { timestamp: Date.now() - 301_000 } : {}),
    });
    if (kind === "badSig") {
      const sig = headers["x-hub-signature"]!;
      headers["x-hub-signature"] = sig.slice(0, -1) + (sig.endsWith("0") ? "1" : "0");
    }
  }
  if (raw !== "") headers["content-type"] = "application/json";
  return t.app.inject({ method: method as "GET", url: req.url, headers, ...(raw !== "" ? { payload: raw } : {}) });
}

test("every registered route has a matrix entry and every entry a route", () => {
  const registered = t.app.registeredRoutes;
  const missing = registered.filter((r) => !entryOf(r.method, r.url)).map((r) => `${r.method} ${r.url}`);
  assert.deepEqual(missing, [], "routes without a matrix entry");
  const keys = new Set(registered.map((r) => `${r.method} ${r.url}`));
  assert.deepEqual(
    Object.keys(MATRIX).filter((k) => !keys.has(k)),
    [],
    "matrix entries without a route",
  );
});

test("route × principal × visibility: every cell answers its expected status", async () => {
  const mismatches: string[] = [];
  let cells = 0;
  for (const route of t.app.registeredRoutes) {
    const entry = entryOf(route.method, route.url);
    if (!entry) continue;
    for (const v of ["public", "private"] as const) {
      for (const kind of KINDS) {
        const principal = { stranger, reader, writer, revoked, owner: t.owner }[kind as "owner"] ?? t.owner;
        const req = await entry.request({ contract: contracts[v].id, genesis: contracts[v].genesis, principal });
        const res = await send(route.method, kind, req);
        const expected = entry.rule(kind, v);
        cells++;
        if (res.statusCode !== expected) {
          mismatches.push(`${route.method} ${req.url} as ${kind} (${v}): ${res.statusCode}, expected ${expected}`);
        }
        if (res.statusCode >= 400 && route.method !== "HEAD" && res.body !== "") {
          assert.equal(typeof JSON.parse(res.body).code, "string", `${route.method} ${req.url}`);
        }
      }
    }
  }
  console.log(`authorization matrix: ${cells} cells over ${t.app.registeredRoutes.length} routes`);
  assert.deepEqual(mismatches, []);
});
