/**
 * fast-check generators of syntax trees, shared by the parser's round-trip tests and the model
 * checker's property tests. Generated trees carry a dummy `pos`; compare with `withoutPos`.
 */
import fc from "fast-check";
import type {
  Formula,
  FormulaDecl,
  ModelDecl,
  Part,
  Pos,
  Property,
  RuleDecl,
  SourceFile,
  Transition,
} from "../src/lang/ast.js";
import { BUILTIN_PREDICATES } from "../src/lang/properties.js";
import { KEYWORDS } from "../src/lang/Token.js";

const POS: Pos = { line: 1, column: 1 };

/** fc.record with ordinary prototypes, so generated trees deep-equal parsed ones. */
function record<T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> {
  return fc.record(model, { noNullPrototype: true }) as fc.Arbitrary<T>;
}

/** Identifiers that may name states, parts, models, rules and formulas (no keywords). */
export const nameArb: fc.Arbitrary<string> = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,7}$/)
  .filter((s) => !KEYWORDS.has(s));

/** Predicate arguments: paths, digit strings, identifiers and arbitrary text (escapes, surrogates). */
export const argArb: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^\/[A-Za-z0-9_.\-/]{1,12}$/),
  fc.stringMatching(/^[0-9]{1,4}$/),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((n) => String.fromCharCode(n)), maxLength: 2 }),
);

export interface PropertyOptions {
  /** Static label names to draw from (e.g. `["A", "B"]`). */
  labels: readonly string[];
  /** Also generate predicates (`signed_by(/users/x.id)`, `post_to(p, v)`, custom calls). Default true. */
  predicates?: boolean;
}

/** One signed property: a static label from `labels`, or (optionally) a predicate call. */
export function propertyArb(opts: PropertyOptions): fc.Arbitrary<Property> {
  const sign = fc.constantFrom<"+" | "-">("+", "-");
  const statics = record({ sign, name: fc.constantFrom(...opts.labels), args: fc.constant(null) });
  if (opts.predicates === false) return statics;
  const predicate = fc.oneof(
    record({
      sign,
      name: fc.constant("signed_by"),
      args: fc.constantFrom("alice", "bob", "carol").map((p) => [`/users/${p}.id`]),
    }),
    record({ sign, name: fc.constant("post_to"), args: fc.tuple(argArb, argArb).map(([p, v]) => [p, v]) }),
    record({ sign, name: fc.constant("adds_rule"), args: fc.constant(null) }),
    record({
      sign,
      name: nameArb.filter((n) => !BUILTIN_PREDICATES.has(n)),
      args: fc.array(argArb, { maxLength: 3 }),
    }),
  );
  return fc.oneof({ weight: 3, arbitrary: statics }, { weight: 1, arbitrary: predicate });
}

/** A label list of up to `maxLength` properties. */
export function labelArb(opts: PropertyOptions, maxLength = 3): fc.Arbitrary<Property[]> {
  return fc.array(propertyArb(opts), { maxLength });
}

export interface FormulaOptions extends PropertyOptions {
  /** State names usable as atomic propositions. */
  states: readonly string[];
  /** Maximum tree depth (operators nested). Default 4. */
  maxDepth?: number;
  /**
   * Only place bound variables under an even number of negations (the checker rejects the
   * others). Default true. Bound variables are named `X0`, `X1`, … by binding depth.
   */
  monotone?: boolean;
}

/** Formulas over the given states and labels, with lfp/gfp binding fresh variables. */
export function formulaArb(opts: FormulaOptions): fc.Arbitrary<Formula> {
  const monotone = opts.monotone ?? true;
  const label = labelArb(opts, 2);
  const memo = new Map<string, fc.Arbitrary<Formula>>();

  // depth: levels left; vars: variables in scope; positive: an even number of negations so far.
  const at = (depth: number, vars: number, positive: boolean): fc.Arbitrary<Formula> => {
    const key = `${depth}|${vars}|${positive || !monotone}`;
    const cached = memo.get(key);
    if (cached) return cached;
    const names = [...opts.states, ...(positive || !monotone ? Array.from({ length: vars }, (_, i) => `X${i}`) : [])];
    const leaves: fc.Arbitrary<Formula>[] = [
      fc.constant<Formula>({ kind: "true" }),
      fc.constant<Formula>({ kind: "false" }),
    ];
    if (names.length > 0) leaves.push(fc.constantFrom(...names).map((name): Formula => ({ kind: "ident", name })));
    const leaf = fc.oneof(...leaves);
    if (depth <= 0) {
      memo.set(key, leaf);
      return leaf;
    }
    const same = fc.constant(null).chain(() => at(depth - 1, vars, positive));
    const flipped = fc.constant(null).chain(() => at(depth - 1, vars, !positive));
    const bound = fc.constant(null).chain(() => at(depth - 1, vars + 1, positive));
    const arb = fc.oneof(
      { weight: 2, arbitrary: leaf },
      { weight: 1, arbitrary: flipped.map((arg): Formula => ({ kind: "not", arg })) },
      {
        weight: 3,
        arbitrary: fc
          .tuple(fc.constantFrom<"and" | "or">("and", "or"), same, same)
          .map(([kind, left, right]): Formula => ({ kind, left, right })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(flipped, same).map(([left, right]): Formula => ({ kind: "implies", left, right })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(same, same, fc.constantFrom<"infix" | "call">("infix", "call"))
          .map(([left, right, form]): Formula => ({ kind: "until", left, right, form })),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom<"diamond" | "box" | "diamondbox">("diamond", "box", "diamondbox"), label, same)
          .map(([kind, l, arg]): Formula => ({ kind, label: l, arg })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom<"lfp" | "gfp">("lfp", "gfp"), bound)
          .map(([kind, body]): Formula => ({ kind, variable: `X${vars}`, body })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom<"always" | "eventually" | "next">("always", "eventually", "next"), same)
          .map(([kind, arg]): Formula => ({ kind, arg })),
      },
    );
    memo.set(key, arb);
    return arb;
  };
  return at(opts.maxDepth ?? 4, 0, true);
}

export interface ModelOptions extends PropertyOptions {
  /** Number of states (`q0` … `q{N-1}`) or their names. */
  states: number | readonly string[];
  /** Maximum transitions per part (and directly in the body). Default 8. */
  maxTransitions?: number;
  /** Maximum number of `part` blocks. Default 2; 0 gives single-part models. */
  maxParts?: number;
}

/** The state names a ModelOptions value stands for. */
export function stateNames(states: number | readonly string[]): string[] {
  return typeof states === "number" ? Array.from({ length: states }, (_, i) => `q${i}`) : [...states];
}

/** Models over the given states: direct transitions, parts, both arrow forms, optional `initial`. */
export function modelArb(opts: ModelOptions): fc.Arbitrary<ModelDecl> {
  const states = stateNames(opts.states);
  const state = fc.constantFrom(...states);
  const transition: fc.Arbitrary<Transition> = record({
    from: state,
    to: state,
    label: labelArb(opts),
    arrow: fc.constantFrom<"->" | "-->">("->", "-->"),
    pos: fc.constant(POS),
  });
  const transitions = fc.array(transition, { maxLength: opts.maxTransitions ?? 8 });
  const part: fc.Arbitrary<Part> = record({ name: nameArb, transitions, pos: fc.constant(POS) });
  return fc
    .record({
      named: fc.boolean(),
      name: nameArb,
      initial: fc.option(state, { nil: null }),
      transitions,
      parts: fc.array(part, { maxLength: opts.maxParts ?? 2 }),
    })
    .map(({ named, name, initial, transitions, parts }) => ({
      kind: "model",
      name: named ? name : "default",
      form: named ? "named" : "export-default",
      initial,
      transitions,
      parts,
      pos: POS,
    }));
}

const hashArb = fc.stringMatching(/^[0-9a-f]{64}$/);

/** Rules in all three envelopes around formulas from `formulaArb(opts)`. */
export function ruleArb(opts: FormulaOptions): fc.Arbitrary<RuleDecl> {
  const formula = formulaArb(opts);
  const bare = formula.map(
    (f): RuleDecl => ({
      kind: "rule",
      envelope: "bare",
      name: null,
      startingAt: null,
      formulaName: null,
      formula: f,
      pos: POS,
    }),
  );
  const wrapped = fc
    .record({
      named: fc.boolean(),
      name: nameArb,
      startingAt: fc.option(fc.oneof(fc.constant("$PARENT"), hashArb), { nil: null }),
      formulaName: fc.option(nameArb, { nil: null }),
      formula,
    })
    .map(
      ({ named, name, startingAt, formulaName, formula: f }): RuleDecl => ({
        kind: "rule",
        envelope: named ? "named" : "export-default",
        name: named ? name : null,
        startingAt,
        formulaName,
        formula: f,
        pos: POS,
      }),
    );
  return fc.oneof(bare, wrapped);
}

/** Whole source texts: models, formula declarations and rules in any order. */
export function sourceArb(opts: FormulaOptions & ModelOptions): fc.Arbitrary<SourceFile> {
  const decl = fc
    .tuple(nameArb, formulaArb(opts))
    .map(([name, formula]): FormulaDecl => ({ kind: "formula", name, formula, pos: POS }));
  const item = fc.oneof(modelArb(opts), decl, ruleArb(opts));
  return fc.array(item, { maxLength: 4 }).map((items) => ({ items }));
}

/** A deep copy without `pos` fields, for comparing a reparsed tree with the original. */
export function withoutPos<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === "pos" ? undefined : v))) as T;
}
