/**
 * Parts shared by the families: a dispute settled by an arbiter, an exit that opens at a
 * deadline, a cancel both sides sign. Each adds steps to a draft and the rules those steps
 * make true.
 */
import { type Draft, type Party, signedBy, who, whose } from "./Draft.js";
import type { Deal } from "./readDeal.js";

export const DEADLINE = "/terms/deadline.datetime";
export const after = `after(${DEADLINE})`;
export const before = `before(${DEADLINE})`;

/** Records that the model reads the deadline, and what the description said about it. */
export function needDeadline(d: Draft, deal: Deal, what = "the deadline"): void {
  d.terms.set(DEADLINE, deal.deadline !== null ? `${what} ("${deal.deadline}")` : what);
}

/**
 * Either side may open a dispute from `from`; only the arbiter leaves `disputed`, to one of
 * `outcomes` ([action, state, meaning]).
 */
export function disputePart(
  d: Draft,
  from: string[],
  sides: Party[],
  arbiter: Party,
  outcomes: Array<[string, string, string]>,
): void {
  d.uses("arbiter");
  for (const f of from) for (const s of sides) d.step(f, "disputed", "DISPUTE", signedBy(s));
  for (const [action, state] of outcomes) d.step("disputed", state, action, signedBy(arbiter));
  d.rule(`always(disputed -> [-${signedBy(arbiter)}] disputed)`, `A dispute is resolved only by ${who(arbiter)}`);
  for (const [, state, meaning] of outcomes) {
    d.guard(state, signedBy(arbiter), `${meaning} only by ${whose(arbiter)} decision`);
  }
  for (const s of sides) {
    const other = sides.find((x) => x !== s);
    const f = from.find((x) =>
      d.steps.some((t) => t.from === x && t.to === "disputed" && t.props.includes(`+${signedBy(s)}`)),
    );
    if (other !== undefined && f !== undefined) {
      d.escape(
        f,
        "disputed",
        other,
        `${who(s)} can take a dispute to ${who(arbiter)} without ${whose(other)} signature`,
        s,
      );
    }
  }
}

/**
 * After the deadline, `by` alone leaves any of `from` for `to` (a refund, a reclaim, a
 * default): stated as "only after the deadline" for the others and "without the others'
 * signature" for `by`.
 */
export function deadlineExit(
  d: Draft,
  deal: Deal,
  opts: { from: string[]; to: string; action: string; by: Party; meaning: string; against: Party[] },
): void {
  d.uses("deadline");
  needDeadline(d, deal);
  for (const f of opts.from) d.step(f, opts.to, opts.action, signedBy(opts.by), after);
  d.guard(opts.to, after, `${opts.meaning} only after the deadline`, ...opts.against);
  d.guard(opts.to, signedBy(opts.by), `${opts.meaning} only with ${whose(opts.by)} signature`, opts.by);
  for (const other of opts.against) {
    d.escape(
      opts.from[0]!,
      opts.to,
      other,
      `After the deadline ${who(opts.by)} can act without ${whose(other)} signature: ${opts.meaning.toLowerCase()}`,
      opts.by,
    );
  }
}

/** Both sides sign to call it off from `from`; each is protected by the need for its signature. */
export function mutualCancel(d: Draft, from: string[], sides: Party[]): void {
  for (const f of from) d.step(f, "cancelled", "CANCEL", ...sides.map(signedBy));
  for (const s of sides) d.guard("cancelled", signedBy(s), `It is cancelled only with ${whose(s)} signature`, s);
}
