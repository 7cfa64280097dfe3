/**
 * The SDK's named result types (src/api/responses.ts, exported from "contract-hub") say what a
 * real hub answers: each HubClient method is called against a hub on loopback (SQLite, the
 * template catalogue, the pattern synthesizer) and every field of its answer is checked
 * against a shape the compiler derives from the type. A shape must name every field of its
 * type, each with kinds the type allows, so a type that changes without its shape does not
 * compile (`npx tsc --noEmit -p .`); an answer with a field missing, of another kind, or not
 * in the type fails here.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import type {
  AssetsResult,
  CheckpointKeyResult,
  ConsistencyProofResult,
  InclusionProofResult,
  IncomingSend,
  IncomingSendsResult,
  ListContractsResult,
  ListedContract,
  ListedState,
  SynthesisResult,
  Template,
  TemplateParam,
  TemplateSummary,
} from "../src/client/index.js";
import { HubClient } from "../src/client/index.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type RunningServers, startServers } from "../src/http/startServers.js";
import { Hub } from "../src/hub/Hub.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { hubOperations } from "../src/synthesis/hubOperations.js";
import { TEMPLATE_CATALOGUE } from "../src/templates/templateCatalogue.js";

/** The runtime kinds a JSON value can have; `absent` is an optional field left out. */
type Kind = "string" | "number" | "boolean" | "null" | "array" | "object" | "absent";

/** The kinds a value of static type V may have at run time. */
type KindOf<V> = V extends string
  ? "string"
  : V extends number
    ? "number"
    : V extends boolean
      ? "boolean"
      : V extends null
        ? "null"
        : V extends undefined
          ? "absent"
          : V extends readonly unknown[]
            ? "array"
            : "object";

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/** Every field of T, each with a non-empty list of kinds that T allows it (optional fields may be `absent`). */
type Shape<T> = {
  [K in keyof T]-?: readonly [
    KindOf<T[K]> | (K extends OptionalKeys<T> ? "absent" : never),
    ...(KindOf<T[K]> | (K extends OptionalKeys<T> ? "absent" : never))[],
  ];
};

function kindOf(v: unknown): Kind {
  if (v === undefined) return "absent";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  const t = typeof v;
  if (t === "string" || t === "number" || t === "boolean" || t === "object") return t;
  throw new Error(`not a JSON value: ${t}`);
}

/** Asserts `value` has exactly the fields of `shape`, each of one of its kinds; returns it typed. */
function expectShape<T>(what: string, value: unknown, shape: Shape<T>): T {
  assert.equal(kindOf(value), "object", `${what} is an object`);
  const obj = value as Record<string, unknown>;
  const kinds = shape as Record<string, readonly Kind[]>;
  for (const key of Object.keys(obj)) assert.ok(key in kinds, `${what} has field ${key}, which its type does not name`);
  for (const [key, allowed] of Object.entries(kinds)) {
    assert.ok(allowed.includes(kindOf(obj[key])), `${what}.${key} is ${kindOf(obj[key])}, the type says ${allowed}`);
  }
  return value as T;
}

function expectArray(what: string, value: unknown, minLength = 1): unknown[] {
  assert.ok(Array.isArray(value), `${what} is an array`);
  assert.ok(value.length >= minLength, `${what} has at least ${minLength} entries (so its entries are checked)`);
  return value;
}

function expectStrings(what: string, value: unknown): void {
  for (const s of expectArray(what, value, 0)) assert.equal(typeof s, "string", `${what} holds strings`);
}

function expectStringRecord(what: string, value: unknown): void {
  assert.equal(kindOf(value), "object", `${what} is an object`);
  for (const [k, v] of Object.entries(value as object)) assert.equal(typeof v, "string", `${what}.${k} is a string`);
}

const LISTED_CONTRACT: Shape<ListedContract> = {
  contract_id: ["string"],
  owner: ["string"],
  created_at: ["number"],
  head: ["string"],
  commit_count: ["number"],
  private: ["boolean"],
  state: ["object", "null", "absent"],
};
const LISTED_STATE: Shape<ListedState> = { current_state: ["string"], current_states: ["array"] };
const TEMPLATE_SUMMARY: Shape<TemplateSummary> = {
  id: ["string"],
  name: ["string"],
  description: ["string"],
  params: ["array"],
};
const TEMPLATE_PARAM: Shape<TemplateParam> = {
  name: ["string"],
  type: ["string"],
  required: ["boolean"],
  description: ["string"],
  default: ["number", "string", "absent"],
  path: ["string"],
  min: ["number", "absent"],
  max: ["number", "absent"],
};

let dir: string;
let store: SqliteStore;
let hub: Hub;
let servers: RunningServers;
let client: HubClient;
/** The SEND to `sink`, whose hash and leaf the proofs ask about. */
let sendHash: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "hub-client-types-"));
  store = await SqliteStore.open({ dataDir: dir });
  hub = new Hub({ store, templates: TEMPLATE_CATALOGUE, synthesis: hubOperations({}) });
  servers = await startServers(
    {
      hub,
      authenticator: new Authenticator({ store }),
      registry: new AccessRegistry({ store }),
      rateLimit: 0,
      logger: false,
    },
    { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: true },
  );
  const identity = generateKeyPair();
  const access = generateKeyPair();
  await new HubClient({ url: servers.restUrl, retries: 0 }).register(identity.seed, access.seed);
  client = new HubClient({ url: servers.restUrl, accessKey: access.seed, retries: 0 });
  await client.createContract({ contract_id: "src", model: null, rules: [] });
  await client.createContract({ contract_id: "sink", model: null, rules: [] });
  const send = buildCommit("src", (await client.getState("src")).head, [
    { method: "create", value: { asset_id: "gold", quantity: 100, divisibility: 1 } },
    { method: "send", value: { asset_id: "gold", to_contract: "sink", amount: 30 } },
  ]);
  await client.push("src", [send]);
  sendHash = send.hash;
});
after(async () => {
  await servers?.close();
  await hub?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("HubClient answers have the fields of their named types", () => {
  it("listContracts: ListContractsResult, with and without include=state", async () => {
    for (const include of [undefined, "state"] as const) {
      const page = expectShape<ListContractsResult>("listContracts", await client.listContracts({ include }), {
        contracts: ["array"],
        total: ["number"],
      });
      for (const c of expectArray("contracts", page.contracts, 2)) {
        const listed = expectShape<ListedContract>("contract", c, LISTED_CONTRACT);
        if (include === "state") expectShape<ListedState>("contract.state", listed.state, LISTED_STATE);
        else assert.equal(listed.state, undefined);
      }
    }
  });

  it("getAssets and getAllAssets: AssetsResult", async () => {
    for (const answer of [await client.getAssets("src"), await client.getAllAssets("src")]) {
      const books = expectShape<AssetsResult>("assets", answer, {
        contract_id: ["string"],
        assets: ["array"],
        balances: ["array"],
        assets_total: ["number"],
        balances_total: ["number"],
      });
      for (const a of expectArray("assets", books.assets)) {
        expectShape<AssetsResult["assets"][number]>("asset", a, {
          asset_id: ["string"],
          issuer: ["string"],
          quantity: ["number"],
          divisibility: ["number"],
        });
      }
      for (const b of expectArray("balances", books.balances)) {
        expectShape<AssetsResult["balances"][number]>("balance", b, {
          asset_id: ["string"],
          issuer: ["string"],
          amount: ["number"],
        });
      }
    }
  });

  it("listIncomingSends: IncomingSendsResult", async () => {
    const incoming = expectShape<IncomingSendsResult>("incoming", await client.listIncomingSends("sink"), {
      contract_id: ["string"],
      sends: ["array"],
      total: ["number"],
    });
    for (const s of expectArray("sends", incoming.sends)) {
      expectShape<IncomingSend>("send", s, {
        send_commit_id: ["string"],
        from_contract: ["string"],
        asset_id: ["string"],
        issuer: ["string"],
        amount: ["number"],
        timestamp: ["number"],
        leaf_index: ["number"],
        received: ["boolean"],
        recv_commit_id: ["string", "null"],
      });
    }
  });

  it("listTemplates: TemplateSummary[]; getTemplate: Template", async () => {
    const list = expectArray("templates", await client.listTemplates());
    for (const t of list) {
      const summary = expectShape<TemplateSummary>("template summary", t, TEMPLATE_SUMMARY);
      for (const p of summary.params) expectShape<TemplateParam>(`${summary.id} param`, p, TEMPLATE_PARAM);
    }
    const first = list[0] as TemplateSummary;
    const template = expectShape<Template>("template", await client.getTemplate(first.id), {
      ...TEMPLATE_SUMMARY,
      model: ["string"],
      rules: ["array"],
      parties: ["array"],
      protections: ["object"],
    });
    for (const p of expectArray("params", template.params)) expectShape<TemplateParam>("param", p, TEMPLATE_PARAM);
    expectStrings("rules", template.rules);
    expectStrings("parties", template.parties);
    expectStringRecord("protections", template.protections);
  });

  it("synthesize: SynthesisResult", async () => {
    const result = expectShape<SynthesisResult>(
      "synthesis",
      await client.synthesize("An escrow where a buyer pays a seller, with an arbiter"),
      {
        model: ["string"],
        rules: ["array"],
        parties: ["array"],
        protections: ["object"],
        prompt: ["string"],
        source: ["string"],
        warnings: ["array"],
        patterns: ["array"],
        confidence: ["number"],
      },
    );
    assert.ok(["llm", "patterns"].includes(result.source), result.source);
    for (const list of ["rules", "parties", "warnings", "patterns"] as const) expectStrings(list, result[list]);
    expectStringRecord("protections", result.protections);
  });

  it("checkpointKey, inclusionProof, consistencyProof: their named results", async () => {
    expectShape<CheckpointKeyResult>("checkpoint key", await client.checkpointKey(), {
      origin: ["string"],
      public_key: ["string"],
      verifier_key: ["string"],
      witnesses: ["object", "absent"],
    });
    const inclusion = expectShape<InclusionProofResult>("inclusion", await client.inclusionProof(sendHash), {
      leaf_index: ["number"],
      tree_size: ["number"],
      proof: ["array"],
    });
    expectStrings("inclusion proof", inclusion.proof);
    const consistency = expectShape<ConsistencyProofResult>(
      "consistency",
      await client.consistencyProof(1, inclusion.tree_size),
      { from: ["number"], to: ["number"], proof: ["array"] },
    );
    expectStrings("consistency proof", consistency.proof);
  });
});
