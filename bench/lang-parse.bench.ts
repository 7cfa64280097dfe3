/** Parse throughput of the language front end on a multi-MB model text and on formulas. */
import { parseFormula, parseModel } from "../src/lang/parser.js";
import { printFormula } from "../src/lang/printer.js";
import { medianMs, type Reporter } from "./Reporter.js";

const BENCH = "lang-parse";

/** A model of `n` states in a ring with labelled transitions, predicates and comments: about 110 bytes per state. */
function bigModel(n: number): string {
  const lines = ["model Big {", "  initial s0"];
  for (let i = 0; i < n; i++) {
    const to = (i + 1) % n;
    if (i % 50 === 0) lines.push(`  // block ${i}`);
    lines.push(
      i % 2 === 0
        ? `  s${i} -> s${to} [+POST +signed_by(/users/u${i % 7}.id), -LOCKED]`
        : `  s${i} --> s${to}: +post_to("/order/status.text", "step ${i}") +threshold(2, /board)`,
    );
  }
  lines.push("}");
  return lines.join("\n");
}

/** A balanced formula with every kind of operator, printed once and parsed many times. */
function formulaText(depth: number): string {
  const build = (d: number): string => {
    if (d === 0) return "q0";
    const sub = build(d - 1);
    switch (d % 5) {
      case 0:
        return `(${sub} & <+A -B> ${d % 2 ? "true" : "q1"}) | [<+signed_by(/users/a.id)>] (${sub})`;
      case 1:
        return `always(${sub} -> eventually(done))`;
      case 2:
        return `lfp(X${d}, ${sub} | <>X${d})`;
      case 3:
        return `(${sub}) until [-RELEASE] false`;
      default:
        return `!(${sub}) & next(${sub})`;
    }
  };
  return build(depth);
}

export default async function bench(r: Reporter): Promise<void> {
  const model = bigModel(40_000);
  const mb = Buffer.byteLength(model) / 2 ** 20;
  parseModel(model); // warm-up
  const ms = medianMs(() => parseModel(model), 5);
  r.add({ bench: BENCH, case: `model ${mb.toFixed(1)} MiB (40k states)`, value: mb / (ms / 1000), unit: "MiB/s" });

  const formula = printFormula(parseFormula(formulaText(12)));
  const fmb = Buffer.byteLength(formula) / 2 ** 20;
  const reps = Math.max(1, Math.round(2 / fmb));
  parseFormula(formula);
  const fms = medianMs(() => {
    for (let i = 0; i < reps; i++) parseFormula(formula);
  }, 5);
  r.add({
    bench: BENCH,
    case: `formula ${(Buffer.byteLength(formula) / 1024).toFixed(1)} KiB × ${reps}`,
    value: (fmb * reps) / (fms / 1000),
    unit: "MiB/s",
  });

  const small = "always([+RELEASE] true -> <+signed_by(/users/buyer.id)> true)";
  const smallReps = 20_000;
  const sms = medianMs(() => {
    for (let i = 0; i < smallReps; i++) parseFormula(small);
  }, 5);
  r.add({ bench: BENCH, case: "small rule formula", value: smallReps / (sms / 1000), unit: "parses/s" });
}
