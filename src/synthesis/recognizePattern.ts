/**
 * A `pattern_hint` naming one of the hub's templates, for steering the language model with
 * that template's model and rules (the pattern synthesizer reads hints with familyForHint).
 */

/** Hint spellings → template id. */
const HINTS: Record<string, string> = {
  escrow: "escrow",
  purchase: "escrow",
  sale: "escrow",
  milestone: "milestone",
  milestones: "milestone",
  staged: "milestone",
  phased: "milestone",
  swap: "atomic_swap",
  atomic_swap: "atomic_swap",
  atomicswap: "atomic_swap",
  exchange: "atomic_swap",
  trade: "atomic_swap",
  multisig: "multisig",
  multi_sig: "multisig",
  multisignature: "multisig",
  threshold: "multisig",
  subscription: "subscription",
  recurring: "subscription",
  service: "service_agreement",
  services: "service_agreement",
  service_agreement: "service_agreement",
  sla: "service_agreement",
};

/** The template a hint names, or null (a hint is free text; unknown hints only steer the language model). */
export function templateForHint(hint: string | undefined): string | null {
  if (hint === undefined) return null;
  const key = hint
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_");
  return HINTS[key] ?? HINTS[key.replace(/_/g, "")] ?? null;
}
