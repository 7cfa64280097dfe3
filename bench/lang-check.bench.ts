/**
 * Model-checking time on generated models (LANGUAGE.md §3 promises linear worklists and
 * Emerson–Lei reuse): a ring through every state plus two random transitions per state,
 * labelled from a pool of static labels and signed_by predicates. Reports ms per check and
 * ns per (state × formula node) so near-linear growth shows as a flat second column.
 */
import type { Formula, ModelDecl, Property, Transition } from "../src/lang/ast.js";
import { checkAtInitial } from "../src/lang/check.js";
import { compileModel, type Lts } from "../src/lang/Lts.js";
import { parseFormula } from "../src/lang/parser.js";
import { medianMs, type Reporter } from "./Reporter.js";

const SIZES = [100, 1_000, 10_000, 100_000];
const FORMULAS: Array<[string, string]> = [
  ["always(eventually)", "always(eventually(s0 & <+A> true))"],
  ["nested gfp/lfp", "gfp(Y, lfp(X, (s0 & <+A> Y) | <-LOCKED> X)) & lfp(Z, s1 | gfp(W, <+B> Z & [] W))"],
];

/** Deterministic PRNG so every run measures the same models. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function generateModel(n: number): ModelDecl {
  const rnd = random(n);
  const pos = { line: 1, column: 1 };
  const statics = ["A", "B", "C", "D", "LOCKED", "POST", "RULE"];
  const label = (): Property[] => {
    const props: Property[] = [];
    const count = Math.floor(rnd() * 3);
    for (let i = 0; i < count; i++) {
      const sign = rnd() < 0.75 ? "+" : "-";
      if (rnd() < 0.3) props.push({ sign, name: "signed_by", args: [`/users/p${Math.floor(rnd() * 20)}.id`] });
      else props.push({ sign, name: statics[Math.floor(rnd() * statics.length)]!, args: null });
    }
    return props;
  };
  const transitions: Transition[] = [];
  const edge = (from: number, to: number) =>
    transitions.push({ from: `s${from}`, to: `s${to}`, label: label(), arrow: "->", pos });
  for (let s = 0; s < n; s++) {
    edge(s, (s + 1) % n);
    edge(s, Math.floor(rnd() * n));
    edge(s, Math.floor(rnd() * n));
  }
  return {
    kind: "model",
    name: `Generated${n}`,
    form: "named",
    initial: "s0",
    transitions: [],
    parts: [{ name: "flow", transitions, pos }],
    pos,
  };
}

function size(f: Formula): number {
  switch (f.kind) {
    case "true":
    case "false":
    case "ident":
      return 1;
    case "and":
    case "or":
    case "implies":
    case "until":
      return 1 + size(f.left) + size(f.right);
    case "lfp":
    case "gfp":
      return 1 + size(f.body);
    default:
      return 1 + size(f.arg);
  }
}

export default async function bench(r: Reporter): Promise<void> {
  for (const n of SIZES) {
    const decl = generateModel(n);
    let lts: Lts | undefined;
    const compileMs = medianMs(() => {
      lts = compileModel(decl);
    }, 3);
    r.add({
      bench: "lang-check",
      case: `compile ${n} states`,
      value: compileMs,
      unit: "ms",
      note: `${lts!.transitionCount} transitions`,
    });
    for (const [name, text] of FORMULAS) {
      const formula = parseFormula(text);
      let holds = false;
      const ms = medianMs(
        () => {
          holds = checkAtInitial(lts!, formula, { counterexample: false }).holds;
        },
        n >= 100_000 ? 3 : 7,
      );
      const perUnit = (ms * 1e6) / (n * size(formula));
      r.add({
        bench: "lang-check",
        case: `${name} ${n} states`,
        value: ms,
        unit: "ms",
        note: `holds=${holds}, size ${size(formula)}`,
      });
      r.add({ bench: "lang-check", case: `${name} ${n} states per state×size`, value: perUnit, unit: "ns" });
    }
  }
}
