import { depositFamily, escrowFamily, loanFamily, swapFamily, wagerFamily } from "./exchangeFamilies.js";
import type { Family } from "./Family.js";
import {
  committeeFamily,
  crowdfundingFamily,
  inheritanceFamily,
  multisigFamily,
  supplyChainFamily,
} from "./groupFamilies.js";
import { bountyFamily, licenceFamily, milestoneFamily, serviceFamily, subscriptionFamily } from "./workFamilies.js";

/** Every family the pattern synthesizer knows, in the order ties are broken. */
export const FAMILIES: readonly Family[] = [
  escrowFamily,
  depositFamily,
  milestoneFamily,
  swapFamily,
  multisigFamily,
  committeeFamily,
  subscriptionFamily,
  serviceFamily,
  loanFamily,
  wagerFamily,
  crowdfundingFamily,
  supplyChainFamily,
  inheritanceFamily,
  licenceFamily,
  bountyFamily,
];

/** Families that refine another: a hint naming the general one still lets the text pick the refinement. */
const REFINES: Record<string, string> = { deposit: "escrow", committee: "multisig", milestone: "service_agreement" };

/** The score at which a family is recognised from the text alone. */
export const RECOGNISED = 3;

export interface Ranked {
  family: Family;
  score: number;
}

/** Families by descending score for a description (ties keep catalogue order). */
export function rankFamilies(description: string): Ranked[] {
  const text = description.toLowerCase();
  return FAMILIES.map((family) => ({
    family,
    score: family.keywords.reduce((sum, [re, w]) => sum + (re.test(text) ? w : 0), 0),
  })).sort((a, b) => b.score - a.score);
}

/** The family a hint names (`"escrow"`, `"Dead man switch"`), or null. */
export function familyForHint(hint: string | undefined): Family | null {
  if (hint === undefined) return null;
  const key = hint
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
  return FAMILIES.find((f) => f.id === key || f.hints.includes(key) || f.hints.includes(key.replace(/_/g, ""))) ?? null;
}

export interface Choice {
  family: Family;
  score: number;
  /** Other families that read almost as well (for a warning). */
  rivals: string[];
  /** How the choice was made, for warnings. */
  via: "hint" | "refined_hint" | "text";
}

/**
 * The family a description asks for: a hint naming one wins, unless the text reads clearly
 * as a refinement of it (hint "escrow" on a rental deposit gives the deposit); otherwise the
 * best-scoring family when it reaches RECOGNISED. Null when nothing fits.
 */
export function chooseFamily(description: string, hint?: string): Choice | null {
  const ranked = rankFamilies(description);
  const best = ranked[0]!;
  const hinted = familyForHint(hint);
  if (hinted !== null) {
    if (REFINES[best.family.id] === hinted.id && best.score >= 5) {
      return { family: best.family, score: best.score, rivals: [], via: "refined_hint" };
    }
    return { family: hinted, score: Math.max(best.score, RECOGNISED), rivals: [], via: "hint" };
  }
  if (best.score < RECOGNISED) return null;
  const rivals = ranked
    .slice(1)
    .filter((r) => r.score >= RECOGNISED && r.score >= best.score - 1 && REFINES[best.family.id] !== r.family.id)
    .map((r) => r.family.id);
  return { family: best.family, score: best.score, rivals, via: "text" };
}
