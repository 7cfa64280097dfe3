import type { ModelDecl, Transition } from "./ast.js";

/** Every transition of a parsed model: those written in its body, then each part's. */
export function modelTransitions(m: ModelDecl): Transition[] {
  return [...m.transitions, ...m.parts.flatMap((p) => p.transitions)];
}
