import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { ParseError, parseFormula, parseModel, parseModels, parseRule } from "../src/lang/parser.js";
import {
  type Check,
  type ConformanceCase,
  checksFor,
  FIXTURE_DIR,
  loadCases,
  type ParseCategory,
  SHARED_DIR,
} from "./conformanceCases.js";
import { refFormula, refModel, withoutParen } from "./referenceForm.js";

/**
 * A case with several models (`models` expected) is a file: parseModels reads it and the reference's
 * "first model" is its first entry. Any other model case must satisfy parseModel's one-model rule.
 */
function parsed(
  category: ParseCategory,
  source: string,
  several = false,
): { model?: unknown; models?: string[]; ast?: string } {
  switch (category) {
    case "parse-model": {
      if (!several) return { model: refModel(parseModel(source)) };
      const models = parseModels(source);
      return { model: models[0] && refModel(models[0]), models: models.map((m) => m.name) };
    }
    case "parse-formula":
      return { ast: refFormula(parseFormula(source)) };
    case "rule-extract":
      return { ast: refFormula(parseRule(source).formula) };
  }
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

function run(category: ParseCategory, check: Check): void {
  const exp = check.expectation;
  if (!exp.ok) {
    const error = caught(() => parsed(category, check.source));
    assert.ok(error instanceof ParseError, `expected a ParseError, got ${String(error)}`);
    if (exp.line !== undefined) {
      assert.deepEqual(
        { line: error.line, column: error.column, expected: error.expected },
        { line: exp.line, column: exp.column, expected: exp.expected },
      );
    }
    return;
  }
  const got = parsed(category, check.source, exp.models !== undefined);
  if (exp.model !== undefined) assert.deepEqual(got.model, exp.model);
  if (exp.models !== undefined) assert.deepEqual(got.models, exp.models);
  if (exp.ast !== undefined) assert.equal(got.ast, withoutParen(exp.ast));
}

describe("shared conformance cases (../shared/conformance/language)", {
  skip: !existsSync(SHARED_DIR) && `${SHARED_DIR} is absent`,
}, () => {
  const cases = existsSync(SHARED_DIR) ? loadCases(SHARED_DIR) : [];
  test("all 38 parse cases are present", () => assert.equal(cases.length, 38));
  for (const c of cases) {
    for (const check of checksFor(c)) test(`${c.file.slice(0, 3)} ${check.label}`, () => run(c.category, check));
  }
});

describe("fixture copies (test/fixtures/language)", () => {
  const fixtures = loadCases(FIXTURE_DIR);
  test("every parse case has a copy", () => assert.equal(fixtures.length, 38));
  for (const f of fixtures) {
    test(`${f.file.slice(0, 3)} ${f.name}`, () => {
      assert.ok(f.ours, "fixture states our result");
      run(f.category, { label: f.name, source: f.source, expectation: f.ours });
    });
  }

  // A copy that drifted from the shared data would make the fixture suite test something else.
  const shared = new Map<string, ConformanceCase>(
    existsSync(SHARED_DIR) ? loadCases(SHARED_DIR).map((c) => [c.file, c]) : [],
  );
  test("copies agree with the shared cases", { skip: shared.size === 0 && "shared data absent" }, () => {
    for (const f of fixtures) {
      const c = shared.get(f.file);
      assert.ok(c, `${f.file} exists in the shared data`);
      assert.equal(f.source, c.source, f.file);
      const derived = checksFor(c)[0]!.expectation;
      assert.equal(f.ours?.ok, derived.ok, f.file);
      if (derived.ok && f.ours?.ok) {
        for (const key of ["model", "models", "ast"] as const) {
          if (derived[key] !== undefined)
            assert.deepEqual(
              f.ours[key],
              key === "ast" ? withoutParen(derived.ast!) : derived[key],
              `${f.file} ${key}`,
            );
        }
      }
    }
  });
});
