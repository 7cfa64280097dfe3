/** The asset races on PostgreSQL: two hub instances (own pools) on one schema race through the database. */
import { after, describe } from "node:test";
import type { Hub } from "../src/hub/Hub.js";
import { assetRaces } from "./asset-races.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance } from "./support/pgHubs.js";

const db = await testDatabase();
const open = new Map<Hub, Instance>();
after(async () => {
  for (const x of open.values()) await x.close();
});

describe("asset races on two PostgreSQL hub instances", { timeout: 120_000 }, () => {
  assetRaces(
    async () => {
      const schema = db.freshSchema();
      const instances = [await openInstance(db.url, schema), await openInstance(db.url, schema)];
      for (const x of instances) open.set(x.hub, x);
      return instances.map((x) => x.hub);
    },
    async (hubs) => {
      for (const h of hubs) {
        await open.get(h)?.close();
        open.delete(h);
      }
    },
  );
});
