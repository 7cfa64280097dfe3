/**
 * A commit holding one value of megabytes, appended to the PostgreSQL store (docs/reliability.md,
 * "Hostile load"): the row's `data` text was one JSON.stringify on the event loop (430 ms to
 * 1.7 s on SQLite for an object of 400,000 members). Now it is written in the shared slices
 * (dataTextInSlices.ts), the same text byte for byte.
 *
 * How it is seen, by ordering: as each statement of the append's transaction comes back, a
 * turn of the event loop is asked for (setImmediate). The statement before the commits' INSERT
 * must have its turn before that INSERT is sent: the row's text is built in between. And the
 * text goes as a plain parameter: pg escapes a column array's elements in one piece (250-350 ms
 * for the data of an object of 400,000 members). A proposal's row, with its attestation's
 * value, is written and read in slices too (watchOnePieces.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import type { ProposalRecord } from "../src/store/ProposalRecord.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { created } from "./store-contract.js";
import { testDatabase } from "./support/pg.js";
import { testChain } from "./support/testChain.js";
import { watchOnePieces } from "./support/watchOnePieces.js";

/** ~15 MB with quotes (escaped: ~22 MB of text) and non-ASCII, in 15 parts of 1 MB. */
const BIG = Array.from({ length: 15 }, (_, i) => `${i}${'x"'.repeat(500)}é漢🙂`.repeat(1_000));

const db = await testDatabase();

describe("long values in the PostgreSQL store", () => {
  let store: PostgresStore;
  const schema = db.freshSchema();
  /** What happened, in order, while `watching`. */
  const order: string[] = [];
  /** The parameters of each INSERT INTO commits (or proposals) sent while `watching`. */
  const inserted: unknown[][] = [];
  let watching = false;
  const query = pg.Client.prototype.query;

  before(async () => {
    store = await PostgresStore.open({ connectionString: db.url, schema, poolSize: 2 });
    // Watches the statements every client sends (the store's pool clients are pg.Clients).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const sent = (query as (...a: unknown[]) => unknown).apply(this, args);
      const text = typeof args[0] === "string" ? args[0] : "";
      if (!watching || !(sent instanceof Promise)) return sent;
      if (text.startsWith("INSERT INTO commits") || text.startsWith("INSERT INTO proposals")) {
        order.push("insert");
        inserted.push(args[1] as unknown[]);
        return sent;
      }
      return sent.then((result) => {
        order.push("statement");
        setImmediate(() => order.push("turn"));
        return result;
      });
    } as typeof query;
  });
  after(async () => {
    pg.Client.prototype.query = query;
    await store?.close();
  });

  it("builds a ~15 MB commit's row in slices: the loop turns between the last statement and the INSERT", async () => {
    const [genesis] = testChain("long", 1);
    await store.appendCommits("long", null, [genesis!], created());
    const data = [{ method: "post" as const, path: "/docs/big.json", value: BIG }];
    const big: StoredCommit = {
      index: 1,
      hash: "cd".repeat(32),
      parent: genesis!.hash,
      data,
      signatures: {},
      timestamp: 1_700_000_001,
      signers: [],
    };
    order.length = 0;
    watching = true;
    try {
      await store.appendCommits("long", genesis!.hash, [big]);
    } finally {
      watching = false;
    }
    const at = order.indexOf("insert");
    assert.deepEqual(order.slice(at - 2, at + 1), ["statement", "turn", "insert"], order.join(","));
    assert.equal(inserted.length, 1);
    assert.ok(inserted[0]!.includes(JSON.stringify(data)), "the data text is one of the INSERT's parameters");
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT data FROM ${schema}.commits WHERE contract_id = $1 AND idx = 1`, [
        "long",
      ]);
      assert.equal(rows[0]?.data, JSON.stringify(data));
    } finally {
      await admin.end();
    }
  });

  it("builds the row of a commit whose attestation holds ~15 MB in slices, its text as JSON.stringify's", async () => {
    // An attestation's value is any JSON: its column was one JSON.stringify, its read one JSON.parse.
    const [genesis] = testChain("attested", 1);
    await store.appendCommits("attested", null, [genesis!], created());
    const attestations = [
      { oracle: `ed25519:${"ef".repeat(32)}`, claim: "doc", value: BIG, signature: "01".repeat(64) },
    ];
    const attested: StoredCommit = {
      index: 1,
      hash: "ce".repeat(32),
      parent: genesis!.hash,
      data: [{ method: "post", path: "/n.json", value: 1 }],
      signatures: {},
      attestations,
      timestamp: 1_700_000_001,
      signers: [],
    };
    order.length = 0;
    inserted.length = 0;
    watching = true;
    try {
      await store.appendCommits("attested", genesis!.hash, [attested]);
    } finally {
      watching = false;
    }
    const at = order.indexOf("insert");
    assert.deepEqual(order.slice(at - 2, at + 1), ["statement", "turn", "insert"], order.join(","));
    assert.ok(
      inserted[0]!.includes(JSON.stringify(attestations)),
      "the attestations text is one of the INSERT's parameters",
    );
    const read: StoredCommit[] = [];
    for await (const c of store.readCommits("attested", 1)) read.push(c);
    assert.deepEqual(read[0]!.attestations, attestations);
  });

  it("writes and reads a proposal whose attestation holds ~15 MB in slices, its text as JSON.stringify's", async () => {
    // The proposal's row had the same one-piece JSON.stringify (its INSERT) and JSON.parse (its reads).
    const [genesis] = testChain("proposed", 1);
    await store.appendCommits("proposed", null, [genesis!], created());
    const attestations = [
      { oracle: `ed25519:${"ef".repeat(32)}`, claim: "doc", value: BIG, signature: "01".repeat(64) },
    ];
    const proposal: ProposalRecord = {
      contractId: "proposed",
      hash: "cf".repeat(32),
      parent: genesis!.hash,
      data: [{ method: "action", value: "NOTE" }],
      signatures: {},
      attestations,
      status: "open",
      proposer: "ab".repeat(32),
      createdAt: 1_700_000_001,
      expiresAt: 1_700_086_401,
      commitIndex: null,
    };
    inserted.length = 0;
    watching = true;
    const watch = watchOnePieces();
    let read: ProposalRecord | null;
    try {
      await store.saveProposal(proposal, { maxOpen: 10, now: 1_700_000_001 });
      read = await store.getProposal("proposed", proposal.hash);
    } finally {
      watch.stop();
      watching = false;
    }
    assert.ok(watch.seen.text < BIG[0]!.length, `JSON.stringify wrote ${watch.seen.text} characters in one call`);
    assert.ok(watch.seen.parsed < BIG[0]!.length, `JSON.parse read ${watch.seen.parsed} characters in one call`);
    assert.equal(inserted.length, 1);
    assert.ok(
      inserted[0]!.includes(JSON.stringify(attestations)),
      "the attestations text is one of the INSERT's parameters",
    );
    assert.deepEqual(read?.attestations, attestations);
  });

  it("keeps the order and text of small commits around a big one in one append", async () => {
    // The big commit's row goes in a statement of its own between the others' batches.
    const [genesis, ...rest] = testChain("mixed", 4);
    await store.appendCommits("mixed", null, [genesis!], created());
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, "é".repeat(10)]));
    rest[1]!.data = [{ method: "post", path: "/wide.json", value: wide }];
    await store.appendCommits("mixed", genesis!.hash, rest);
    const read: StoredCommit[] = [];
    for await (const c of store.readCommits("mixed", 1)) read.push(c);
    assert.deepEqual(
      read.map((c) => [c.index, JSON.stringify(c.data)]),
      rest.map((c) => [c.index, JSON.stringify(c.data)]),
    );
  });
});
