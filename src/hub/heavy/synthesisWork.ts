import type { CandidateCheck } from "../../synthesis/checkCandidate.js";
import { checkCandidate, REQUEST_CHECK_BUDGET } from "../../synthesis/checkCandidate.js";
import type { FixedTerms } from "../../synthesis/fixReadTerms.js";
import { fixReadTerms } from "../../synthesis/fixReadTerms.js";
import type { SynthesisWork } from "../../synthesis/SynthesisWork.js";
import type { Caller } from "../HubApi.js";
import type { HeavyWork } from "./HeavyWork.js";
import { workMsOf } from "./WorkerPool.js";

/** Worker tasks (poolWorker.ts): a synthesized answer's check under the budget left, and its `-modifies` fix. */
export function synthesisCheckTask(p: { model: string | null; rules: string[]; budget: number }): CandidateCheck {
  return checkCandidate(p.model, p.rules, p.budget);
}
export function synthesisFixTask(p: { model: string; maxBytes: number }): FixedTerms {
  return fixReadTerms(p.model, p.maxBytes);
}

/**
 * One synthesis request of `caller` on the hub: compiling and checking a language model's
 * answer (up to a megabyte of model, any number of rules) runs on the worker pool, so the
 * event loop only parses the answer; the time is charged to the caller's work budget, which
 * admits the request before the provider is asked; all its checks share one budget of visits.
 */
export function synthesisWork(work: HeavyWork, caller: Caller): SynthesisWork {
  let left = REQUEST_CHECK_BUDGET;
  const run = async <T>(task: string, payload: unknown): Promise<T> => {
    try {
      const { ms, result } = await work.pool.run<T>(task, payload);
      work.charge(caller, ms);
      return result;
    } catch (err) {
      work.charge(caller, workMsOf(err));
      throw err;
    }
  };
  return {
    admit: () => work.admit(caller),
    check: async (model, rules) => {
      const check = await run<CandidateCheck>("synthesisCheck", { model, rules: [...rules], budget: left });
      left -= check.visits;
      return check;
    },
    fixReadTerms: (model, maxBytes) => run<FixedTerms>("synthesisFix", { model, maxBytes }),
  };
}
