/**
 * The texts of what every subscriber of a contract is sent alike: a commit's log entry and
 * state view, a proposal. Serializing them was most of the cost of an event: the state view of
 * a model leaving its state by 30,000 transitions is ~3 MB, a log entry or a proposal may hold
 * a value of megabytes, and one commit could fan out to thousands of subscriptions. So each
 * text is made once and kept with its object (the objects are shared by the subscriptions and
 * never changed), and a big one is written in the hub's shared slices (dataTextInSlices.ts),
 * not by one JSON.stringify that held the event loop for the whole value.
 */

import type { ProposalView } from "../api/responses.js";
import type { LogEntry } from "../contract/Commit.js";
import { isBigCommitData } from "../contract/commitHashInSlices.js";
import { yieldSometimes } from "../lib/sharedSlice.js";
import { dataTextInSlices } from "../store/dataTextInSlices.js";
import { isBigProposal } from "./bigProposalAnswer.js";

/** A text now, or one still being written in slices. */
export type EventText = string | Promise<string>;

const TEXTS = new WeakMap<object, EventText>();

/** `JSON.stringify(value)`, made once per object: in slices when `big(value)`. */
function sharedText<T extends object>(value: T, big: (value: T) => boolean): EventText {
  let text = TEXTS.get(value);
  if (text === undefined) {
    text = big(value) ? dataTextInSlices(value, yieldSometimes) : JSON.stringify(value);
    TEXTS.set(value, text);
  }
  return text;
}

/** The text of a commit event's log entry: its `value` is the commit's first operation's, any JSON. */
export const logEntryText = (entry: LogEntry): EventText => sharedText(entry, (e) => isBigCommitData([e]));

/** The text of a state view: never big by its values (it holds none), only by its list of actions. */
export const stateViewText = (view: object): EventText => sharedText(view, () => false);

/** The text of a proposal: its operations' and attestations' values are any JSON. */
export const proposalText = (proposal: ProposalView): EventText => sharedText(proposal, isBigProposal);

/** The pieces joined: a text when every piece is one, else the promise of it. */
export function joinTexts(pieces: readonly EventText[]): EventText {
  if (pieces.every((p) => typeof p === "string")) return (pieces as string[]).join("");
  return Promise.all(pieces).then((texts) => texts.join(""));
}
