import type { Draft, Party } from "./Draft.js";
import type { Deal } from "./readDeal.js";

/** A role of a family and the words a description may use for it. */
export interface RoleSpec {
  role: string;
  /** Words naming the role in text ("buyer", "purchaser"); the first is used when no name is found. */
  words: string[];
  /** Present only when the description asks for it (an arbiter, an executor). */
  when?: (deal: Deal) => boolean;
  /** A group of keys under a directory (`/backers`), not one person. */
  group?: boolean;
  /** Generic relation roles this role takes (`payer` from "A pays B", `first` from "A and B"). */
  relations?: string[];
}

/**
 * A family of contracts people ask for (escrow, loan, wager…): the words that recognise it,
 * its roles, and how it assembles a draft from parts given what the description says.
 */
export interface Family {
  id: string;
  /** One line for the 503's `details.closest` and the docs. */
  summary: string;
  /** Weighted patterns over the lower-cased description: a strong one (≥ 3) alone recognises it. */
  keywords: Array<[RegExp, number]>;
  roles: RoleSpec[];
  /** Hint spellings that name this family. */
  hints: string[];
  /**
   * Parties of a family whose cast depends on the text (n-of-m signers, a chain of handlers),
   * from the proper names and role words found; the roles above are used otherwise.
   */
  cast?(text: string, people: string[], deal: Deal): Party[];
  build(draft: Draft, deal: Deal): void;
}
