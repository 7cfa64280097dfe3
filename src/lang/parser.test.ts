import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import { modelArb, ruleArb, withoutPos } from "../../test/arbitraries.js";
import { type ReferenceModel, refFormula, refModel } from "../../test/referenceForm.js";
import {
  MAX_FORMULA_DEPTH,
  ParseError,
  parseFormula,
  parseModel,
  parseModels,
  parseRule,
  parseSource,
} from "./parser.js";
import { printModel, printRule } from "./printer.js";

type Entry = "formula" | "model" | "rule" | "source";

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/language/${name}`, import.meta.url), "utf8")) as T;

const PARSERS: Record<Entry, (text: string) => unknown> = {
  formula: parseFormula,
  model: parseModel,
  rule: parseRule,
  source: parseSource,
};

function parseErrorOf(fn: () => unknown): ParseError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ParseError, `expected a ParseError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a ParseError, but the text parsed");
}

interface ErrorCase {
  name: string;
  parse: Entry;
  source: string;
  line: number;
  column: number;
  expected: string[];
}

describe("every error site (test/fixtures/language/own-errors.json)", () => {
  for (const c of fixture<ErrorCase[]>("own-errors.json")) {
    test(c.name, () => {
      const e = parseErrorOf(() => PARSERS[c.parse](c.source));
      assert.deepEqual(
        { line: e.line, column: e.column, expected: e.expected },
        { line: c.line, column: c.column, expected: c.expected },
      );
      assert.ok(e.message.startsWith(`${c.line}:${c.column}: expected `), "message starts with the position");
    });
  }
});

interface ConstructCase {
  name: string;
  parse: "formula" | "model" | "rule";
  source: string;
  ast?: string | null;
  model?: ReferenceModel;
  rule?: { envelope: string; name: string | null; startingAt: string | null; formulaName: string | null; ast: string };
}

describe("every construct (test/fixtures/language/own-constructs.json)", () => {
  for (const c of fixture<ConstructCase[]>("own-constructs.json")) {
    test(c.name, () => {
      if (c.parse === "formula") {
        const f = parseFormula(c.source);
        if (c.ast) assert.equal(refFormula(f), c.ast);
      } else if (c.parse === "model") {
        assert.deepEqual(refModel(parseModel(c.source)), c.model);
      } else {
        const r = parseRule(c.source);
        const { envelope, name, startingAt, formulaName } = r;
        assert.deepEqual({ envelope, name, startingAt, formulaName, ast: refFormula(r.formula) }, c.rule);
      }
    });
  }
});

describe("the error message", () => {
  test("has the documented shape", () => {
    const e = parseErrorOf(() => parseModel("model M {\n  initial q0\n  q0 => q1\n}"));
    assert.equal(e.message, '3:6: expected "->" or "-->" after state name, got "=>"');
    assert.equal(e.got, "=>");
  });
  test("reports end of input unquoted in got", () => {
    const e = parseErrorOf(() => parseFormula("a &"));
    assert.equal(e.got, "end of input");
  });
  test("the depth limit names the limit", () => {
    const e = parseErrorOf(() => parseFormula(`${"!".repeat(MAX_FORMULA_DEPTH + 1)}a`));
    assert.match(e.message, new RegExp(String(MAX_FORMULA_DEPTH)));
  });
});

describe("formula depth limit", () => {
  const chain = (op: string, n: number) => Array.from({ length: n }, () => "a").join(op);
  for (const op of [" & ", " | ", " -> ", " until "]) {
    test(`${op.trim()}: ${MAX_FORMULA_DEPTH} levels parse, one more does not`, () => {
      parseFormula(chain(op, MAX_FORMULA_DEPTH));
      const e = parseErrorOf(() => parseFormula(chain(op, MAX_FORMULA_DEPTH + 1)));
      assert.deepEqual(e.expected, [`at most ${MAX_FORMULA_DEPTH} nested formula levels`]);
    });
  }
  test("mixed wrappers count each level", () => {
    parseFormula(`${"<>".repeat(127)}${"!".repeat(128)}a`);
    parseErrorOf(() => parseFormula(`${"<>".repeat(128)}${"!".repeat(128)}a`));
  });
  test("hostile inputs fail fast instead of overflowing the stack", () => {
    for (const text of [
      "(".repeat(1e6),
      "!".repeat(1e6),
      "<>".repeat(1e6),
      `${"a -> ".repeat(2e5)}a`,
      `${"until(".repeat(1e5)}`,
    ]) {
      parseErrorOf(() => parseFormula(text));
    }
  });
});

describe("positions", () => {
  test("items, parts and transitions carry their first token's position", () => {
    const s = parseSource(
      "// c\nmodel M {\n  a -> b\n  part p {\n    x --> y\n  }\n}\nformula F { a }\n  rule r { formula { a } }\nb & c",
    );
    assert.deepEqual(
      s.items.map((i) => [i.kind, i.pos]),
      [
        ["model", { line: 2, column: 1 }],
        ["formula", { line: 8, column: 1 }],
        ["rule", { line: 9, column: 3 }],
        ["rule", { line: 10, column: 1 }],
      ],
    );
    const m = s.items[0]!;
    assert.ok(m.kind === "model");
    assert.deepEqual(m.transitions[0]!.pos, { line: 3, column: 3 });
    assert.deepEqual(m.parts[0]!.pos, { line: 4, column: 3 });
    assert.deepEqual(m.parts[0]!.transitions[0]!.pos, { line: 5, column: 5 });
  });
  test("columns after non-ASCII text count UTF-16 units", () => {
    const e = parseErrorOf(() => parseFormula("μX. ◇(X) ="));
    assert.deepEqual([e.line, e.column], [1, 10]);
  });
});

describe("entry points", () => {
  test("parseSource keeps every kind of item in order", () => {
    const s = parseSource("model A {} export default rule { formula { a } } formula F { b } model B {} c");
    assert.deepEqual(
      s.items.map((i) => `${i.kind}:${"name" in i ? i.name : ""}`),
      ["model:A", "rule:null", "formula:F", "model:B", "rule:null"],
    );
  });
  test("parseModels returns the models in order and ignores the rest", () => {
    assert.deepEqual(
      parseModels("rule r { formula { a } } model A {} formula F { b } export default model {}").map((m) => m.name),
      ["A", "default"],
    );
    assert.deepEqual(parseModels("formula F { b }"), []);
  });
  test("parseModel accepts comments around the one model", () => {
    assert.equal(parseModel("/* x */ model A {} // y").name, "A");
  });
  test("parseRule accepts a bare formula as a rule anchored at $PARENT by default", () => {
    const r = parseRule("always(a)");
    assert.deepEqual([r.envelope, r.startingAt], ["bare", null]);
  });
  test("sources that print back parse to the same tree", () => {
    fc.assert(
      fc.property(modelArb({ states: 3, labels: ["A"] }), ruleArb({ states: ["q0"], labels: ["A"] }), (m, r) => {
        const s = parseSource(`${printModel(m)}\n${printRule(r)}`);
        assert.deepEqual(withoutPos(s.items), withoutPos([m, r]));
      }),
      { numRuns: 100 },
    );
  });
});

describe("fuzzing: nothing but ParseError, whatever the input", () => {
  const alphabet = [
    ...'abq0 19_-/>.<[]{}()!|&,:+"\\$μν◇□\n*#;=',
    "->",
    "-->",
    "model",
    "part",
    "initial",
    "export",
    "default",
  ];
  const tokens = [
    ...alphabet,
    "rule",
    "formula",
    "starting_at",
    "$PARENT",
    "until",
    "lfp",
    "gfp",
    "always",
    "not",
    "and",
    "or",
    "true",
    "signed_by",
    "/a/b.id",
    '"s"',
    "//",
    "/*",
    "*/",
  ];
  const texts = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.array(fc.constantFrom(...tokens), { maxLength: 40 }).map((t) => t.join(" ")),
    fc.array(fc.constantFrom(...tokens), { maxLength: 40 }).map((t) => t.join("")),
  );
  for (const [name, parse] of Object.entries(PARSERS)) {
    test(name, () => {
      fc.assert(
        fc.property(texts, (text) => {
          try {
            parse(text);
          } catch (error) {
            if (!(error instanceof ParseError)) throw error;
            assert.ok(error.line >= 1 && error.column >= 1 && error.expected.length > 0);
          }
        }),
        { numRuns: 2000 },
      );
    });
  }
  test("mutations of valid models", () => {
    const valid = fc.tuple(
      modelArb({ states: 4, labels: ["A", "B"] }),
      fc.nat(),
      fc.nat(),
      fc.string({ maxLength: 3 }),
    );
    fc.assert(
      fc.property(valid, ([m, at, len, insert]) => {
        const text = printModel(m);
        const i = at % (text.length + 1);
        const mutated = text.slice(0, i) + insert + text.slice(i + (len % 4));
        try {
          parseSource(mutated);
        } catch (error) {
          if (!(error instanceof ParseError)) throw error;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
