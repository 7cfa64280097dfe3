import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/**
 * The better-sqlite3 binding for this Node. Version 12 (built from source at install) is the
 * last that loads on Node 20, but on Node 24 its statements' destructors abort the process
 * when the garbage collector runs them during an environment's teardown (a worker's exit, or
 * the process's). Version 13 (installed as `better-sqlite3-napi`, prebuilt on Node-API 10)
 * fixes that and needs Node-API 10 (Node 22.14 and later), so it is taken wherever the
 * runtime offers that. Both have the same API.
 */
const require = createRequire(import.meta.url);
const napi = Number(process.versions.napi ?? 0);
const Database: typeof BetterSqlite3 = require(napi >= 10 ? "better-sqlite3-napi" : "better-sqlite3");

// The binding's types under the same name, so `Database.Statement` reads as it does upstream.
declare namespace Database {
  type Database = BetterSqlite3.Database;
  type Statement = BetterSqlite3.Statement;
  type Transaction<F extends (...params: never[]) => unknown> = BetterSqlite3.Transaction<F>;
}

export default Database;
