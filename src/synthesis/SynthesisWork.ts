import { type CandidateCheck, checkCandidate, REQUEST_CHECK_BUDGET } from "./checkCandidate.js";
import { type FixedTerms, fixReadTerms } from "./fixReadTerms.js";

/**
 * Where one synthesis request's expensive work runs and who pays for it. The hub runs it on
 * its worker pool, charged to the caller's work budget (a provider's answer can hold a model
 * of a megabyte and hundreds of rules, which no request may check on the event loop); the
 * command line runs it in place. Either way the request's checks share one budget of visits.
 */
export interface SynthesisWork {
  /** Refuses the caller (429 `work_budget`) while its allowance is spent; asked before the provider is. */
  admit(): void;
  /** `checkCandidate` under what is left of the request's budget. */
  check(model: string | null, rules: readonly string[]): Promise<CandidateCheck>;
  /** `fixReadTerms` of a model that compiled. */
  fixReadTerms(model: string, maxBytes: number): Promise<FixedTerms>;
}

/** The request's work on the calling thread, free: for the command line and library use. */
export function inlineWork(): SynthesisWork {
  let left = REQUEST_CHECK_BUDGET;
  return {
    admit: () => {},
    check: async (model, rules) => {
      const check = checkCandidate(model, rules, left);
      left -= check.visits;
      return check;
    },
    fixReadTerms: async (model, maxBytes) => fixReadTerms(model, maxBytes),
  };
}
