/**
 * A database at schema version 6 holding what a hub wrote, for the version 7 migration tests
 * (test/migration-v7.test.ts, test/migration-v7-pg.test.ts). Its tables are built by the
 * migrations up to 6 (`migrate(db, now, 6)`, `migratePg(client, now, schema, 6)`); its rows are
 * those a hub of this code wrote into a scratch store of the same dialect, copied table by
 * table. Version 7 changes the commits' indexes, not what an append writes, so these are the
 * rows a hub of version 6 would have left.
 */
import assert from "node:assert/strict";
import type pg from "pg";
import type { Hub } from "../../src/hub/Hub.js";
import { ANONYMOUS } from "../../src/hub/HubApi.js";
import type { Store } from "../../src/store/Store.js";
import type Database from "../../src/store/sqlite/Database.js";
import { contracts, create, recv, send } from "../asset-fixtures.js";
import { Actor, ESCROW, escrowState, signedCommit } from "../hub-fixtures.js";

/** Every table a hub writes, in an order its foreign keys accept rows in. */
export const HUB_TABLES = [
  "contracts",
  "commits",
  "identities",
  "access_keys",
  "nonces",
  "grants",
  "assets",
  "balances",
  "sends",
  "receipts",
  "party_paths",
  "tlog_nodes",
  "tlog_size",
  "tlog_key",
  "proposals",
  "state_snapshots",
] as const;

/**
 * Columns a later version added and backfilled (version 11: each SEND's leaf; version 13: its
 * received marker), left out of the dumps, so a dump of a migrated database compares with what
 * version 6 stored; the later versions' own tests check them (test/migration-v11.test.ts,
 * test/migration-v13.test.ts).
 */
const LATER_COLUMNS: Readonly<Record<string, readonly string[]>> = { sends: ["leaf_index", "received"] };
const dumped = (table: string, columns: readonly string[]) =>
  columns.filter((c) => !(LATER_COLUMNS[table] ?? []).includes(c)).join(", ");

/** What the story left: its contracts, parties and the hashes the tests look up. */
export interface Story {
  ids: string[];
  owner: Actor;
  buyer: Actor;
  seller: Actor;
  /** The escrow, left at `delivered`: a RELEASE signed by the buyer appends to it. */
  escrow: string;
  /** The received SEND (issuer → holder) and the one still pending. */
  received: string;
  pending: string;
}

/**
 * Writes, through `hub` (opened with `snapshotEvery: 2`), an escrow with signed commits and
 * text that JSON writes with escapes, two contracts with an asset sent and received (and a
 * second SEND pending), a private contract with a reader, and a request nonce; waits for the
 * state snapshots the appends started.
 */
export async function writeStory(hub: Hub): Promise<Story> {
  const owner = new Actor("owner");
  const buyer = new Actor("buyer");
  const seller = new Actor("seller");
  const escrow = "escrow";
  await hub.createContract(buyer.caller, {
    contract_id: escrow,
    model: ESCROW,
    rules: [],
    state: { ...escrowState(buyer, seller), "/t/e.json": { z: [0.1, 1.5e-7, -2], a: '\u2028"\\😀' } },
  });
  let head = (await hub.getState(ANONYMOUS, escrow)).head;
  for (const [who, data] of [
    [buyer, [{ method: "action" as const, value: "DEPOSIT" }]],
    [
      seller,
      [
        { method: "post" as const, path: "/notes/tracking.json", value: { é: ["\u0000", 2.5e-8], n: null } },
        { method: "action" as const, value: "DELIVER" },
      ],
    ],
  ] as const) {
    const commit = signedCommit(escrow, head, [...data], [who]);
    head = (await hub.submitCommit(who.caller, escrow, { commit })).result.commit_hash;
  }
  await contracts(hub, owner, "issuer", "holder");
  await create(hub, owner, "issuer", "gold", 100);
  const received = await send(hub, owner, "issuer", "gold", "holder", 30);
  await recv(hub, owner, "holder", received);
  const pending = await send(hub, owner, "issuer", "gold", "holder", 5);
  await hub.createContract(owner.caller, { contract_id: "secret", readers: [buyer.identity] });
  await hub.submitCommit(owner.caller, "secret", {
    contract_id: "secret",
    method: "post",
    path: "/a.text",
    value: "x",
  });
  await hub.store.useNonce(owner.key, "0f".repeat(16), Math.floor(Date.now() / 1000) + 3600);
  const ids = [escrow, "issuer", "holder", "secret"];
  // Snapshots are written after the answers; every contract here is past its first one.
  for (let i = 0; i < 500 && (await hub.store.listSnapshots()).length < ids.length; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return { ids, owner, buyer, seller, escrow, received, pending };
}

/** Every pull entry of each contract, as the store serves them (JSON texts). */
export async function pullTexts(store: Store, ids: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const id of ids) {
    const length = (await store.getContract(id))!.length;
    out[id] = [];
    for await (const page of store.readPullTexts(id, 0, length)) out[id].push(...page);
  }
  return out;
}

/** Copies every hub table of the SQLite file `from` into `db` (at schema 6, otherwise empty but for its seed rows). */
export function copySqliteRows(from: string, db: Database.Database): void {
  db.prepare("ATTACH DATABASE ? AS src").run(from);
  db.transaction(() => {
    for (const t of HUB_TABLES) {
      const cols = (db.pragma(`main.table_info(${t})`) as { name: string }[]).map((c) => c.name).join(", ");
      db.exec(`DELETE FROM main.${t}; INSERT INTO main.${t} (${cols}) SELECT ${cols} FROM src.${t}`);
    }
  })();
  db.exec("DETACH DATABASE src");
}

/** Every row of every hub table, each table in one fixed order, as SQLite returns them. */
export function dumpSqlite(db: Database.Database): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of HUB_TABLES) {
    const cols = dumped(
      t,
      (db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name),
    );
    out[t] = db.prepare(`SELECT ${cols} FROM ${t} ORDER BY ${cols}`).all();
  }
  return out;
}

/** A pool or one of its clients. */
type Queryable = pg.Pool | pg.ClientBase;

/** The columns of `schema.table` in PostgreSQL, in table order. */
async function pgColumnList(client: Queryable, schema: string, table: string): Promise<string[]> {
  const { rows } = await client.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
    [schema, table],
  );
  return rows.map((r) => r.column_name);
}
const pgColumns = async (client: Queryable, schema: string, table: string) =>
  (await pgColumnList(client, schema, table)).join(", ");

/** Copies every hub table of schema `from` into schema `to` (at 6, otherwise empty but for its seed rows). */
export async function copyPgRows(client: pg.ClientBase, from: string, to: string): Promise<void> {
  await client.query("BEGIN");
  for (const t of HUB_TABLES) {
    const cols = await pgColumns(client, to, t);
    await client.query(`DELETE FROM "${to}".${t}`);
    await client.query(`INSERT INTO "${to}".${t} (${cols}) SELECT ${cols} FROM "${from}".${t}`);
  }
  await client.query("COMMIT");
}

/** Every row of every hub table of `schema`, each table in one fixed order. */
export async function dumpPg(client: Queryable, schema: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of HUB_TABLES) {
    const cols = dumped(t, await pgColumnList(client, schema, t));
    out[t] = (await client.query(`SELECT ${cols} FROM "${schema}".${t} ORDER BY ${cols}`)).rows;
  }
  return out;
}

/**
 * What a hub over the migrated store must still do with the story: read the escrow's state,
 * log and commits by hash, prove a commit's inclusion, list incoming SENDs, append a RELEASE
 * (and find it stored when pushed again), and pull the old commits byte for byte as before.
 */
export async function assertServesAndAppends(hub: Hub, story: Story, pulled: Record<string, string[]>): Promise<void> {
  const { escrow, buyer } = story;
  assert.equal((await hub.getState(ANONYMOUS, escrow)).current_state, "delivered");
  const log = await hub.getLog(ANONYMOUS, escrow, {});
  for (const c of log.commits) assert.equal((await hub.getCommit(ANONYMOUS, escrow, c.hash)).index, c.index);
  assert.equal(typeof (await hub.getInclusionProof(ANONYMOUS, { hash: story.received })).leaf_index, "number");
  const incoming = await hub.listIncomingSends(ANONYMOUS, "holder", {});
  assert.deepEqual(
    incoming.sends.map((s) => [s.send_commit_id, s.received]),
    [
      [story.received, true],
      [story.pending, false],
    ],
  );
  const head = (await hub.getState(ANONYMOUS, escrow)).head;
  const release = signedCommit(escrow, head, [{ method: "action", value: "RELEASE" }], [buyer]);
  assert.equal((await hub.push(buyer.caller, escrow, { commits: [release] })).pushed, 1);
  // The same commit again is found stored (storedHashes): nothing new.
  assert.deepEqual(await hub.push(buyer.caller, escrow, { commits: [release] }), { pushed: 0, head: release.hash });
  assert.equal((await hub.getState(ANONYMOUS, escrow)).current_state, "released");
  const all = await hub.pull(ANONYMOUS, escrow, {});
  assert.deepEqual(
    all.commits.slice(0, -1).map((c) => JSON.stringify(c)),
    pulled[escrow],
  );
  assert.equal(all.commits.at(-1)!.hash, release.hash);
}
