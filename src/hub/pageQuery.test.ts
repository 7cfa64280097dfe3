import assert from "node:assert/strict";
import { it } from "node:test";
import { assertContractError } from "../contract/assertContractError.js";
import { pageQuery } from "./pageQuery.js";

it("pages with defaults, caps the limit and refuses malformed values", () => {
  assert.deepEqual(pageQuery({}), { limit: 100, offset: 0 });
  assert.deepEqual(pageQuery({ limit: "20", offset: 5 }), { limit: 20, offset: 5 });
  assert.deepEqual(pageQuery({ limit: 5000 }), { limit: 1000, offset: 0 });
  for (const bad of [{ limit: -1 }, { limit: 1.5 }, { offset: "x" }, { limit: "1e3" }, { offset: null }]) {
    assertContractError(() => pageQuery(bad), "INVALID_REQUEST", "bad_query");
  }
});
