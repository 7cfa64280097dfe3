/** The incoming-SENDs list on PostgreSQL: the shared hub cases on a hub instance of a fresh schema. */
import { after, describe } from "node:test";
import type { Hub } from "../src/hub/Hub.js";
import { incomingCases } from "./asset-incoming.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance } from "./support/pgHubs.js";

const db = await testDatabase();
const open = new Map<Hub, Instance>();
after(async () => {
  for (const x of open.values()) await x.close();
});

describe("incoming SENDs on PostgreSQL", { timeout: 60_000 }, () => {
  incomingCases(
    async () => {
      const x = await openInstance(db.url, db.freshSchema());
      open.set(x.hub, x);
      return x.hub;
    },
    async (hub) => {
      await open.get(hub)?.close();
      open.delete(hub);
    },
  );
});
