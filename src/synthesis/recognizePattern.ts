/**
 * Keyword matching of a description (or a `pattern_hint`) onto a template id, for the pattern
 * synthesizer and for steering the language model. Deterministic: the same text always maps
 * to the same template.
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

/** Weighted keywords per template: a strong word (3) alone recognises a description; weak ones (1) add up. */
const KEYWORDS: Record<string, Array<[RegExp, number]>> = {
  escrow: [
    [/\bescrow/, 3],
    [/\b(buys?|buying|bought|purchas\w*|sells?|selling|sold|seller|buyer|vendor)\b/, 3],
    [/\b(arbiter|arbitrat\w*|mediat\w*|dispute\w*)\b/, 1],
    [/\b(deposit\w*|release\w*|goods|item|tickets?|car|bike|laptop|held|hold)\b/, 1],
  ],
  milestone: [
    [/\bmilestones?\b/, 4],
    [/\b(phases?|stages?|installments?|tranches?|deliverables)\b/, 3],
    [/\b(each|every)\b.*\b(deliver\w*|part)\b/, 1],
  ],
  atomic_swap: [
    [/\b(swaps?|swapping|atomic\w*|barter\w*)\b/, 4],
    [/\b(exchanges?|exchanging|trades?|trading)\b/, 3],
    [/\bin (exchange|return) for\b|\bfor (his|her|their)\b/, 2],
  ],
  multisig: [
    [/\b(multi-?sig\w*|multi-?signature|quorum|co-?signs?)\b/, 4],
    [
      /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)[- ]of[- ](\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b/,
      4,
    ],
    [/\b(treasury|wallet|joint account|board|committee|directors|trustees|signers|signatories)\b/, 2],
    [/\b(signatures? (are |is )?required|must (all )?sign|majority|approvals?)\b/, 2],
  ],
  subscription: [
    [/\b(subscri\w*|membership)\b/, 4],
    [/\b(monthly|weekly|yearly|annual\w*|recurring|renew\w*|rent\w*|every month|per month|each month)\b/, 3],
    [/\b(newsletter|streaming|plan|gym|tenant|landlord|lease)\b/, 1],
  ],
  service_agreement: [
    [/\bservice agreement\b|\bsla\b/, 5],
    [/\b(services?|consult\w*|cleans?|cleaning|repairs?|maintenance|hires?|hired)\b/, 3],
    [/\b(freelanc\w*|designer|developer|consultant|agency|contractor)\b/, 2],
    [/\b(designs?|develops?|builds?|delivers?|website|logo|app)\b/, 1],
    [/\b(approv\w*|changes|revisions?)\b/, 1],
    [/\b(deadline|by the end of|before)\b/, 1],
  ],
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

/** Score of each template for a description (higher is a better match). */
export function patternScores(description: string): Record<string, number> {
  const text = description.toLowerCase();
  const scores: Record<string, number> = {};
  for (const [id, words] of Object.entries(KEYWORDS)) {
    scores[id] = words.reduce((sum, [re, w]) => sum + (re.test(text) ? w : 0), 0);
  }
  return scores;
}

/** The template a description (or hint, which wins) asks for, or null when nothing scores at least 3. */
export function recognizePattern(description: string, hint?: string): string | null {
  const hinted = templateForHint(hint);
  if (hinted !== null) return hinted;
  let best: string | null = null;
  let bestScore = 2;
  for (const [id, score] of Object.entries(patternScores(description))) {
    if (score > bestScore) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}
