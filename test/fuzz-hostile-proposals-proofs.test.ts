/**
 * Seeded fuzzing of the newer surfaces with hostile inputs: the proposal routes (create,
 * list, get, sign, withdraw) and the checkpoint and proof routes (`GET /checkpoint`,
 * `/checkpoint/key`, `/proofs/inclusion`, `/proofs/consistency`), over REST and their
 * JSON-RPC methods. Query strings carry huge numbers, negatives, fractions, non-digits,
 * sizes past the tree, repeated parameters and bad escapes; bodies and params carry wrong
 * types, prototype keys, huge strings and broken JSON. Every answer is a success or an
 * error of the error table (its status or JSON-RPC number, `{error, code}`), never a 5xx;
 * a refused request stores nothing (heads, lengths, every proposal with its signatures,
 * the log's size); and the hub still answers `/health` after each input.
 * FUZZ_RUNS (inputs per test) and FUZZ_SEED replay a run; the seed is printed.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { signRequest } from "../src/auth/signRequest.js";
import type { Operation } from "../src/contract/Commit.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import { ERROR_TABLE } from "../src/http/errorTable.js";
import type { ProposalStatus } from "../src/store/ProposalRecord.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const LIMITS = { bodyBytes: 64 * 1024, pushBodyBytes: 256 * 1024 };
const CODES = new Set(Object.keys(ERROR_TABLE));
/** JSON-RPC numbers an answer may carry: the protocol's own and the error table's. */
const RPC_NUMBERS = new Set([-32700, -32600, -32601, ...Object.values(ERROR_TABLE).map((e) => e.rpc)]);
const STATUSES: ProposalStatus[] = ["open", "committed", "stale", "withdrawn", "expired"];

const MODEL = `model Deal {
  initial open
  open -> open [+NOTE]
  open -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  cancelled -> cancelled []
}`;

let t: TestApp;
let rpcApp: FastifyInstance;
let seller: Principal;
let id: string;
let head: string;
/** An open proposal's hash (renewed when an input withdraws or completes it). */
let openHash: string;
let proposals = 0;
let inputs = 0;
const seen = new Map<string, number>();
const count = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);

/** A CANCEL commit on `head` signed by the buyer only: a proposal that stays open. */
function cancelCommit() {
  const ops: Operation[] = [
    { method: "action", value: "CANCEL" },
    { method: "post", path: `/notes/p${proposals++}.text`, value: "why" },
  ];
  const c = buildCommit(id, head, ops);
  c.head.signatures["/users/buyer.id"] = signCommit(c.hash, t.owner.identity.seed);
  return c;
}

async function openProposal(): Promise<string> {
  const c = cancelCommit();
  const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit: c } });
  assert.equal(res.statusCode, 201, res.body);
  return c.hash;
}

before(async () => {
  t = await testApp("rest", { limits: LIMITS });
  rpcApp = await buildRpcApp(t.options);
  await rpcApp.ready();
  seller = await t.principal();
  ({ id, head } = await t.contract({
    model: MODEL,
    rules: [],
    state: { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key },
  }));
  for (let i = 0; i < 3; i++) {
    const res = await t.signed({
      method: "POST",
      url: `/contracts/${id}/commits`,
      body: { contract_id: id, method: "action", value: "NOTE", parent: head },
    });
    assert.equal(res.statusCode, 201, res.body);
    head = res.json().commit_hash;
  }
  openHash = await openProposal();
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} to replay)`);
});
after(async () => {
  console.log(`fuzz: ${inputs} generated inputs in total`);
  console.log(`fuzz answers: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  await rpcApp.close();
  await t.close();
});

/** Everything a refused request must leave as it was. */
async function snapshot(): Promise<string> {
  const { contracts, total } = await t.hub.store.listContracts({ identity: t.owner.key, limit: 10_000, offset: 0 });
  const now = Math.floor(Date.now() / 1000);
  const byStatus = [];
  for (const status of STATUSES) {
    const list = await t.hub.store.listProposals(id, { status, now, limit: 10_000, offset: 0 });
    byStatus.push([status, list.map((p) => [p.hash, p.signatures, p.status])]);
  }
  const { size, root } = await t.hub.getCheckpoint();
  return JSON.stringify([total, contracts.map((c) => [c.id, c.head, c.length]), byStatus, size, root]);
}

/** After an input: /health answers, and an input that changed things gets a fresh open proposal. */
async function afterInput(before: string, refused: boolean, what: string): Promise<void> {
  const now = await snapshot();
  if (refused) assert.equal(now, before, `${what} was refused but changed the store`);
  else if (now !== before) {
    const state = (await t.app.inject({ method: "GET", url: `/contracts/${id}/state` })).json() as { head: string };
    head = state.head;
    const open = await t.hub.store.listProposals(id, {
      status: "open",
      now: Math.floor(Date.now() / 1000),
      limit: 1,
      offset: 0,
    });
    openHash = open[0]?.hash ?? (await openProposal());
  }
  const health = await t.app.inject({ method: "GET", url: "/health" });
  assert.equal(health.statusCode, 200, `/health after ${what}: ${health.body}`);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
}

/** A REST answer: a success, or `{error, code}` of the error table under its own status. */
function assertRestAnswer(status: number, body: string, what: string): boolean {
  assert.ok(status < 500, `${what} -> ${status} ${body.slice(0, 300)}`);
  if (status < 400) return false;
  const answer = JSON.parse(body) as { code?: unknown; error?: unknown };
  assert.equal(typeof answer.error, "string", `${what}: ${body.slice(0, 300)}`);
  assert.ok(CODES.has(answer.code as string), `${what}: undocumented code ${String(answer.code)}`);
  assert.equal(ERROR_TABLE[answer.code as keyof typeof ERROR_TABLE].http, status, `${what}: ${body.slice(0, 300)}`);
  return true;
}

// ---- hostile pieces -------------------------------------------------------------------

const hugeNumbers = [
  "0",
  "-1",
  "-0",
  "1.5",
  "1e3",
  "1e400",
  "0x10",
  "+3",
  " 2",
  "2 ",
  "007",
  "9007199254740991",
  "9007199254740993",
  "18446744073709551616",
  "123456789012345678901234567890",
  "NaN",
  "Infinity",
  "-Infinity",
  "",
  "٣",
  "1_000",
  "true",
  "null",
  "[]",
  "%00",
  "%ff",
  "%",
  "%zz",
];
/** A number-ish query value: odd spellings, sizes around the tree's, or any string (escaped). */
const numberValue = fc.oneof(
  fc.constantFrom(...hugeNumbers),
  fc.integer({ min: -5, max: 12 }).map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const hashValue = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(head, openHash) },
    fc.constantFrom(
      head,
      openHash,
      "0".repeat(64),
      "A".repeat(64),
      "g".repeat(64),
      head.slice(1),
      `${head}0`,
      "",
      "%zz",
      "%c0%80",
      "%2F",
    ),
    fc.string({ maxLength: 80 }).map(encodeURIComponent),
    fc.integer({ min: 100, max: 5000 }).map((n) => "a".repeat(n)),
  );
const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty");

/** `?k=v&…` over the route's own parameters (repeated at will), odd ones and prototype keys. */
function query(names: string[]): fc.Arbitrary<string> {
  const pair = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...names), fc.oneof(numberValue, hashValue())) },
    { weight: 1, arbitrary: fc.tuple(hostileKey, numberValue) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("status", "limit", "offset", "x"), numberValue) },
  );
  return fc
    .array(pair, { minLength: 0, maxLength: 5 })
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`));
}

const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, [], {}, "", "\u0000", "ed25519:", 1e308, -1, 2 ** 53 + 2),
  fc.integer({ min: 1, max: 70_000 }).map((n) => "x".repeat(n)),
);

/** A hostile body text derived from a plausible one. */
function hostileBody(base: Record<string, unknown>): fc.Arbitrary<string> {
  const text = JSON.stringify(base);
  const field = fc.constantFrom(...Object.keys(base));
  return fc.oneof(
    fc.constant(text),
    fc.tuple(field, wrongValue).map(([k, v]) => JSON.stringify({ ...base, [k]: v })),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)),
    fc
      .tuple(hostileKey, fc.jsonValue({ maxDepth: 2 }))
      .map(([k, v]) => `{"${k}":${JSON.stringify(v)},${text.slice(1)}`),
    fc.integer({ min: 70, max: 3000 }).map((n) => `{"signatures":${"[".repeat(n)}${"]".repeat(n)}}`),
    field.map((k) => `${text.slice(0, -1)},"${k}":null}`),
  );
}

/** A plausible signatures object: the seller's real signature, a wrong one, or odd keys. */
const signatures = () =>
  fc.oneof(
    fc.constant({ "/users/seller.id": signCommit(openHash, seller.identity.seed) }),
    fc.constant({ "/users/seller.id": "00".repeat(64) }),
    fc.constant({ [`ed25519:${seller.key}`]: signCommit(openHash, seller.identity.seed) }),
    fc.constant({ [`ed25519:${"00".repeat(32)}`]: "00".repeat(64) }),
    fc.dictionary(fc.string({ maxLength: 20 }), fc.oneof(fc.string({ maxLength: 130 }), wrongValue), {
      maxKeys: 40,
    }),
  );

type RestInput = {
  method: "GET" | "POST" | "DELETE";
  url: string;
  body?: string;
  sign: boolean;
  as: "owner" | "seller";
};

function restInputs(): fc.Arbitrary<RestInput> {
  const who = fc.constantFrom<"owner" | "seller">("owner", "seller");
  // Mostly real ids and hashes, so that the hostile part reaches the handlers.
  const hashes = hashValue();
  const contract = fc.oneof(
    { weight: 3, arbitrary: fc.constant(id) },
    fc.constantFrom("missing", "bad id!", "x".repeat(70), "x".repeat(150)),
  );
  return fc.oneof(
    fc.tuple(contract, fc.boolean(), who).chain(([c, sign, as]) =>
      hostileBody({ commit: cancelCommit() }).map((body) => ({
        method: "POST" as const,
        url: `/contracts/${encodeURIComponent(c)}/proposals`,
        body,
        sign,
        as,
      })),
    ),
    fc.tuple(contract, query(["status", "limit", "offset"]), fc.boolean()).map(([c, q, sign]) => ({
      method: "GET" as const,
      url: `/contracts/${encodeURIComponent(c)}/proposals${q}`,
      sign,
      as: "owner" as const,
    })),
    fc.tuple(contract, hashes, query(["hash"])).map(([c, h, q]) => ({
      method: "GET" as const,
      url: `/contracts/${encodeURIComponent(c)}/proposals/${h}${q}`,
      sign: false,
      as: "owner" as const,
    })),
    fc.tuple(contract, hashes, fc.boolean(), who, signatures()).chain(([c, h, sign, as, sigs]) =>
      hostileBody({ signatures: sigs }).map((body) => ({
        method: "POST" as const,
        url: `/contracts/${encodeURIComponent(c)}/proposals/${h}/signatures`,
        body,
        sign,
        as,
      })),
    ),
    fc.tuple(contract, hashes, fc.boolean(), who).map(([c, h, sign, as]) => ({
      method: "DELETE" as const,
      url: `/contracts/${encodeURIComponent(c)}/proposals/${h}`,
      sign,
      as,
    })),
    fc.tuple(fc.constantFrom("/checkpoint", "/checkpoint/key"), query(["size", "hash", "from"])).map(([u, q]) => ({
      method: "GET" as const,
      url: u + q,
      sign: false,
      as: "owner" as const,
    })),
    fc.tuple(query(["hash", "size"]), fc.boolean()).map(([q, sign]) => ({
      method: "GET" as const,
      url: `/proofs/inclusion${q}`,
      sign,
      as: "owner" as const,
    })),
    query(["from", "to"]).map((q) => ({
      method: "GET" as const,
      url: `/proofs/consistency${q}`,
      sign: false,
      as: "owner" as const,
    })),
  );
}

test("REST: hostile proposal, checkpoint and proof requests answer the error table (or success); refusals store nothing", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constant(null).chain(() => restInputs()),
      async (input) => {
        inputs++;
        const before = await snapshot();
        const headers: Record<string, string> = input.body === undefined ? {} : { "content-type": "application/json" };
        const signer = input.as === "owner" ? t.owner : seller;
        if (input.sign)
          Object.assign(
            headers,
            signRequest(signer.access.seed, { method: input.method, url: input.url, body: input.body ?? "" }),
          );
        const res = await t.app.inject({
          method: input.method,
          url: input.url,
          headers,
          ...(input.body !== undefined ? { payload: input.body } : {}),
        });
        const route = input.url.replace(/\?.*/, "").replace(/[0-9a-f]{64}/g, ":hash");
        count(
          `REST ${input.method} ${res.statusCode}${res.statusCode >= 400 ? ` ${(JSON.parse(res.body) as { details?: { reason?: string } }).details?.reason}` : ""}`,
        );
        const what = `${input.method} ${input.url.slice(0, 200)}`;
        const refused = assertRestAnswer(res.statusCode, res.body, what);
        if (!refused && route.startsWith("/proofs/consistency")) {
          const proof = res.json() as { from: number; to: number; proof: string[] };
          assert.ok(Number.isSafeInteger(proof.from) && proof.from >= 1 && proof.from <= proof.to, what);
        }
        await afterInput(before, refused, what);
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
});

/** A hostile value of a JSON-RPC param: numbers of every odd kind, strings, structures. */
const rpcValue = fc.oneof(
  fc.constantFrom(0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 3, 4, 5, 100, "1", "", null, true, [], {}, [1], {
    $gt: 0,
  }),
  fc.integer(),
  fc.string({ maxLength: 20 }),
  fc.jsonValue({ maxDepth: 2 }),
);
/** A param's raw JSON text: a hostile value, or a number spelled beyond what JSON.parse keeps. */
const rpcRaw = fc.oneof(
  rpcValue.map((v) => JSON.stringify(v)),
  fc.constantFrom("1e400", "-1e400", "123456789012345678901234567890", "-0", "1E2", "0.0000001"),
);

test("JSON-RPC: hostile params of the proposal, checkpoint and proof methods answer documented errors; refusals store nothing", async () => {
  const methods = {
    propose: ["contract_id", "commit"],
    listProposals: ["contract_id", "status", "limit", "offset"],
    getProposal: ["contract_id", "hash"],
    signProposal: ["contract_id", "hash", "signatures"],
    withdrawProposal: ["contract_id", "hash"],
    getCheckpoint: [],
    getCheckpointKey: [],
    getInclusionProof: ["hash", "size"],
    getConsistencyProof: ["from", "to"],
  } as Record<string, string[]>;
  const plausible = (name: string): Record<string, string> => {
    const v: Record<string, string> = {
      contract_id: JSON.stringify(id),
      hash: JSON.stringify(name === "getInclusionProof" ? head : openHash),
      commit: JSON.stringify(cancelCommit()),
      signatures: JSON.stringify({ "/users/seller.id": signCommit(openHash, seller.identity.seed) }),
      status: '"open"',
      limit: "5",
      offset: "0",
      size: "4",
      from: "1",
      to: "4",
    };
    return v;
  };
  const arb = fc.record({
    method: fc.constantFrom(...Object.keys(methods)),
    changes: fc.array(
      fc.tuple(
        fc.constantFrom(
          "contract_id",
          "hash",
          "commit",
          "signatures",
          "status",
          "limit",
          "offset",
          "size",
          "from",
          "to",
          "__proto__",
        ),
        rpcRaw,
        fc.boolean(),
      ),
      { maxLength: 4 },
    ),
    shape: fc.constantFrom("object", "array", "missing", "string", "repeated"),
    as: fc.constantFrom("owner", "seller"),
  });
  await fc.assert(
    fc.asyncProperty(arb, async ({ method, changes, shape, as }) => {
      inputs++;
      const before = await snapshot();
      const params = new Map(Object.entries(plausible(method)).filter(([k]) => methods[method]!.includes(k)));
      const repeats: string[] = [];
      for (const [k, raw, drop] of changes) {
        if (drop) params.delete(k);
        else if (shape === "repeated" && params.has(k)) repeats.push(`${JSON.stringify(k)}:${raw}`);
        else params.set(k, raw);
      }
      const members = [...params].map(([k, v]) => `${JSON.stringify(k)}:${v}`);
      const paramsText =
        shape === "array"
          ? `[${[...params.values()].join(",")}]`
          : shape === "string"
            ? '"params"'
            : `{${[...members, ...repeats].join(",")}}`;
      const body = `{"jsonrpc":"2.0","id":7,"method":"${method}"${shape === "missing" ? "" : `,"params":${paramsText}`}}`;
      const signer = as === "owner" ? t.owner : seller;
      const headers = {
        "content-type": "application/json",
        ...signRequest(signer.access.seed, { method: "POST", url: "/", body }),
      };
      const res = await rpcApp.inject({ method: "POST", url: "/", headers, payload: body });
      const what = `${method} ${body.slice(0, 300)}`;
      assert.ok([200, 413].includes(res.statusCode), `${what} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
      const answer = JSON.parse(res.body) as {
        result?: unknown;
        error?: { code: number; message: string; data?: { code?: string } };
      };
      count(`RPC ${method} ${answer.error?.code ?? "result"}`);
      let refused = res.statusCode !== 200;
      if (answer.error !== undefined) {
        refused = true;
        const { code, data } = answer.error;
        const specific = code <= -32010 && code >= -32099 && data?.code === "VALIDATION_FAILED";
        assert.ok(RPC_NUMBERS.has(code) || specific, `${what}: ${JSON.stringify(answer.error)}`);
        assert.notEqual(code, ERROR_TABLE.INTERNAL.rpc, `${what}: ${JSON.stringify(answer.error)}`);
        assert.notEqual(code, ERROR_TABLE.CORRUPTED.rpc, `${what}: ${JSON.stringify(answer.error)}`);
        if (data?.code !== undefined) assert.ok(CODES.has(data.code), `${what}: ${JSON.stringify(answer.error)}`);
      }
      await afterInput(before, refused, what);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test("proof queries at and past the edges, and over-long or malformed path parameters, are refused by name", async () => {
  const { size } = await t.hub.getCheckpoint();
  const cases: Array<[string, number, string]> = [
    [`/proofs/consistency?from=${size + 1}`, 400, "INVALID_REQUEST"],
    [`/proofs/consistency?from=1&to=${size + 1}`, 400, "INVALID_REQUEST"],
    [`/proofs/consistency?from=${size}&to=1`, 400, "INVALID_REQUEST"],
    ["/proofs/consistency?from=0", 400, "INVALID_REQUEST"],
    ["/proofs/consistency?from=-1", 400, "INVALID_REQUEST"],
    ["/proofs/consistency?from=1e400", 400, "INVALID_REQUEST"],
    ["/proofs/consistency?from=99999999999999999999", 400, "INVALID_REQUEST"],
    ["/proofs/consistency", 400, "INVALID_REQUEST"],
    [`/proofs/inclusion?hash=${head}&size=${size + 1}`, 400, "INVALID_REQUEST"],
    [`/proofs/inclusion?hash=${head}&size=0`, 400, "INVALID_REQUEST"],
    [`/proofs/inclusion?hash=${head}&size=1`, 400, "INVALID_REQUEST"],
    [`/proofs/inclusion?hash=${"0".repeat(64)}`, 404, "NOT_FOUND"],
    [`/proofs/inclusion?hash=${head.toUpperCase()}`, 400, "INVALID_REQUEST"],
    ["/proofs/inclusion", 400, "INVALID_REQUEST"],
  ];
  for (const [url, status, code] of cases) {
    const res = await t.app.inject({ method: "GET", url });
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    assert.equal((res.json() as { code: string }).code, code, `${url}: ${res.body}`);
  }
  // Repeated parameters: one meaning or a refusal, never a 5xx.
  for (const url of [
    `/proofs/consistency?from=1&from=2`,
    `/proofs/inclusion?hash=${head}&hash=${head}`,
    `/proofs/inclusion?hash=${head}&size=${size}&size=1`,
  ]) {
    const res = await t.app.inject({ method: "GET", url });
    assertRestAnswer(res.statusCode, res.body, url);
  }
  // The router's own refusals are in the error table's form (fastify's were a 414 of its own).
  for (const [url, reason] of [
    [`/contracts/${id}/proposals/${"a".repeat(101)}`, "path_param_too_long"],
    [`/contracts/${"c".repeat(101)}/proposals`, "path_param_too_long"],
    [`/contracts/${id}/proposals/%zz`, "bad_url"],
  ]) {
    const res = await t.app.inject({ method: "GET", url: url! });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    const body = res.json() as { code: string; details?: { reason?: string } };
    assert.equal(body.code, "INVALID_REQUEST");
    assert.equal(body.details?.reason, reason);
    // An exceeded limit is named by details.limit, as every other limit (docs/api.md "Errors").
    if (reason === "path_param_too_long") assert.equal((body.details as { limit?: number }).limit, 100);
  }
  const ok = await t.app.inject({ method: "GET", url: `/proofs/consistency?from=1&to=${size}` });
  assert.equal(ok.statusCode, 200, ok.body);
});
