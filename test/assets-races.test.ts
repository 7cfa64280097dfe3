/** The asset races on SQLite: one hub, and two hub instances on one database file. */
import { after, describe } from "node:test";
import type { Hub } from "../src/hub/Hub.js";
import { assetRaces } from "./asset-races.js";
import { cleanup, openHub, tempDir } from "./hub-fixtures.js";

after(cleanup);

const closeAll = async (hubs: Hub[]) => {
  for (const h of hubs) await h.close();
};

describe("asset races on one SQLite hub", () => {
  assetRaces(async () => [await openHub()], closeAll);
});

describe("asset races on two hub instances sharing one SQLite file", () => {
  assetRaces(async () => {
    const dir = tempDir();
    return [await openHub(dir), await openHub(dir)];
  }, closeAll);
});
