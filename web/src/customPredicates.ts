/**
 * Custom WASM predicates as the explorer shows them: which transitions of a model a custom
 * predicate guards (any predicate that is not built in runs the module stored at
 * `/_code/custom/<name>.wasm`), and how a rejection reports one's gas. Free of the DOM.
 */

import { printProperty } from "../../src/lang/printer.js";
import { BUILTIN_PREDICATES } from "../../src/lang/properties.js";
import type { ModelView } from "./modelView.js";

/** A transition and the custom predicates on its label. */
export interface CustomGuard {
  from: string;
  to: string;
  label: string;
  predicates: { text: string; name: string; module: string; negated: boolean }[];
}

/** The path a custom predicate's module is read from. */
export function modulePath(name: string): string {
  return `/_code/custom/${name}.wasm`;
}

/** Every transition of the model guarded by at least one custom predicate, in model order. */
export function customGuards(view: ModelView): CustomGuard[] {
  const guards: CustomGuard[] = [];
  for (const t of view.lts.transitions) {
    const custom = t.label.filter((p) => p.args !== null && !BUILTIN_PREDICATES.has(p.name));
    if (custom.length === 0) continue;
    guards.push({
      from: view.names[t.from]!,
      to: view.names[t.to]!,
      label: view.edges[t.index]!.label,
      predicates: custom.map((p) => ({
        text: printProperty(p),
        name: p.name,
        module: modulePath(p.name),
        negated: p.sign === "-",
      })),
    });
  }
  return guards;
}

/** ` — gas 1234` for a failed custom predicate of a rejection (built-ins carry no gas). */
export function gasNote(failed: { gas_used?: number }): string {
  return failed.gas_used === undefined ? "" : ` — gas ${failed.gas_used.toLocaleString("en-US")}`;
}
