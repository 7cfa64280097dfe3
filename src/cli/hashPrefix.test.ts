import assert from "node:assert/strict";
import { test } from "node:test";
import { assertContractError } from "../contract/assertContractError.js";
import { UsageError } from "./cliContext.js";
import { hashRef, MIN_PREFIX, SHORT_HASH, shortHash, uniqueByPrefix } from "./hashPrefix.js";

const A = `abcdef0${"1".repeat(57)}`;
const B = `abcdef0${"2".repeat(57)}`;
const C = `9${"0".repeat(63)}`;
const search = { hashOf: (h: string) => h, what: "SENDs to c_1", notFoundReason: "send_not_found" };

test("a unique prefix names its hash; the printed short hash is one", () => {
  assert.equal(uniqueByPrefix("abcdef01", [A, B, C], search), A);
  assert.equal(uniqueByPrefix(shortHash(C), [A, B, C], search), C);
  assert.equal(uniqueByPrefix(B, [A, B, C], search), B);
  assert.ok(SHORT_HASH >= MIN_PREFIX);
});

test("an ambiguous prefix is a usage error listing every candidate long enough to tell apart", () => {
  assert.throws(
    () => uniqueByPrefix("abcdef0", [A, B, C], { ...search, describe: (h) => (h === A ? "first" : "second") }),
    (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.ok(err.message.includes(`${A.slice(0, 12)}  first`), err.message);
      assert.ok(err.message.includes(`${B.slice(0, 12)}  second`), err.message);
      assert.ok(!err.message.includes(C.slice(0, 12)), err.message);
      return true;
    },
  );
});

test("no match is NOT_FOUND with the caller's reason and the prefix", () => {
  const details = assertContractError(() => uniqueByPrefix("1234567", [A, B], search), "NOT_FOUND", "send_not_found");
  assert.equal(details.prefix, "1234567");
});

test("hashRef takes 7 to 64 hex characters, lower-cased, and refuses anything else as usage", () => {
  assert.equal(hashRef("ABCDEF0", "--send"), "abcdef0");
  assert.equal(hashRef(A, "--send"), A);
  for (const bad of [undefined, "", "abcdef", "abcdefg", `${A}0`, "abc 123"])
    assert.throws(
      () => hashRef(bad, "--send"),
      (err: unknown) => err instanceof UsageError && err.message.startsWith("--send"),
      String(bad),
    );
});
