/**
 * The `commit-structure` conformance cases (112–117 of the shared language data, plus our own
 * 9xx cases) run as data through the same checks every route uses: operation structure, then
 * path and value types. Shared cases are read from ../shared when present; the copies in
 * test/fixtures/structure keep the suite complete without it and carry our `ours` result.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ContractError } from "../src/contract/ContractError.js";
import { checkOperationPaths } from "../src/contract/pathTypes.js";
import { normalizeOperation } from "../src/contract/validateCommitShape.js";

interface StructureCase {
  name: string;
  category: string;
  action: Record<string, unknown>;
  expect: string;
  ours?: { code: string; reason: string };
}

const repoRoot = new URL("..", import.meta.url).pathname;
const SHARED_DIR = join(repoRoot, "../shared/conformance/language");
const FIXTURE_DIR = join(repoRoot, "test/fixtures/structure");

function load(dir: string): Map<string, StructureCase> {
  const out = new Map<string, StructureCase>();
  for (const file of readdirSync(dir)
    .filter((f) => /^\d{3}-.*\.json$/.test(f))
    .sort()) {
    const c = JSON.parse(readFileSync(join(dir, file), "utf8")) as StructureCase;
    if (c.category === "commit-structure") out.set(file, c);
  }
  return out;
}

/** Runs one case; returns the ContractError or null when accepted. */
function run(c: StructureCase): ContractError | null {
  try {
    checkOperationPaths(normalizeOperation(c.action));
    return null;
  } catch (err) {
    if (err instanceof ContractError) return err;
    throw err;
  }
}

function assertCase(c: StructureCase, ours: StructureCase["ours"]): void {
  const err = run(c);
  if (c.expect === "accepted") {
    assert.equal(err, null, err?.message);
    return;
  }
  assert.ok(c.expect.startsWith("rejected"), `unknown expectation ${c.expect}`);
  assert.ok(err, "expected a rejection");
  assert.equal(err.code, ours?.code ?? "VALIDATION_FAILED", err.message);
  if (ours) assert.equal(err.details?.reason, ours.reason, err.message);
  // The rejection names the offending path (LANGUAGE.md §7).
  if (typeof c.action.path === "string") assert.equal(err.details?.path, c.action.path);
}

const fixtures = load(FIXTURE_DIR);

test("fixture copies exist for every case", () => {
  assert.ok(fixtures.size >= 5);
});

for (const [file, c] of fixtures) {
  test(`fixture ${file}`, () => assertCase(c, c.ours));
}

const shared = existsSync(SHARED_DIR) ? load(SHARED_DIR) : new Map<string, StructureCase>();
describe("shared conformance cases", {
  skip: shared.size === 0 && "../shared/conformance/language not present",
}, () => {
  for (const [file, c] of shared) {
    test(`shared ${file}`, () => {
      const copy = fixtures.get(file);
      assert.ok(copy, `no fixture copy of ${file}: copy it to test/fixtures/structure/`);
      const { ours, ...rest } = copy;
      assert.deepEqual(rest, c, "the fixture copy drifted from the shared case");
      assertCase(c, ours);
    });
  }
});
