import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import type { Store } from "../src/store/Store.js";
import { storeContractSuite } from "./store-contract.js";
import { testDatabase } from "./support/pg.js";

// One throwaway database for the file; every store of the suite gets an empty schema in it.
const db = await testDatabase();

storeContractSuite(
  "PostgresStore",
  () => PostgresStore.open({ connectionString: db.url, schema: db.freshSchema(), poolSize: 8 }),
  () => db.drop(),
  {
    reopen: async (store: Store) => {
      const { schema } = store as PostgresStore;
      await store.close();
      return PostgresStore.open({ connectionString: db.url, ...(schema ? { schema } : {}) });
    },
    // unique_violation
    uniqueViolation: "23505",
  },
);
