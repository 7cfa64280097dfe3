/**
 * The texts of what every subscriber of a contract is sent alike: a commit's log entry and
 * state view, a proposal. Serializing them was most of the cost of an event: the state view of
 * a model leaving its state by 30,000 transitions is ~3 MB, a log entry or a proposal may hold
 * a value of megabytes, and one commit could fan out to thousands of subscriptions. So each
 * text is made once and kept with its object (the objects are shared by the subscriptions and
 * never changed). A big one is written in the hub's shared slices (dataTextInSlices.ts), not
 * by one JSON.stringify that held the event loop for the whole value, and kept as UTF-8
 * pieces: a socket sends them as they are (fragments of its message), where a text would be
 * measured and encoded again for every subscriber.
 */

import type { ProposalView } from "../api/responses.js";
import type { LogEntry } from "../contract/Commit.js";
import { isBigCommitData } from "../contract/commitHashInSlices.js";
import { yieldSometimes } from "../lib/sharedSlice.js";
import { dataTextInSlices, textPieces } from "../store/dataTextInSlices.js";
import { isBigProposal } from "./bigProposalAnswer.js";

/** A part of a message: text, or the UTF-8 pieces of a big shared text. */
export type MessagePart = string | readonly Buffer[];
/** A shared text: made now, or still being written (a big one). */
export type SharedText = string | Promise<readonly Buffer[]>;
/** A message: one text, or its parts once the big ones are written. */
export type EventMessage = string | Promise<readonly MessagePart[]>;

/** Characters per piece: a 15 MB text is about 60 fragments, each encoded in one slice. */
const PIECE_CHARS = 256 * 1024;

const TEXTS = new WeakMap<object, SharedText>();

/** `text` as UTF-8 pieces of about PIECE_CHARS characters, never cut inside a surrogate pair. */
async function piecesOf(text: string): Promise<readonly Buffer[]> {
  const pieces: Buffer[] = [];
  for (const piece of textPieces(text, PIECE_CHARS)) {
    pieces.push(Buffer.from(piece));
    await yieldSometimes();
  }
  return pieces;
}

/** `JSON.stringify(value)`, made once per object: in slices, as UTF-8 pieces, when `big(value)`. */
function sharedText<T extends object>(value: T, big: (value: T) => boolean): SharedText {
  let text = TEXTS.get(value);
  if (text === undefined) {
    text = big(value) ? dataTextInSlices(value, yieldSometimes).then(piecesOf) : JSON.stringify(value);
    TEXTS.set(value, text);
  }
  return text;
}

/** The text of a commit event's log entry: its `value` is the commit's first operation's, any JSON. */
export const logEntryText = (entry: LogEntry): SharedText => sharedText(entry, (e) => isBigCommitData([e]));

/** The text of a state view: never big by its values (it holds none), only by its list of actions. */
export const stateViewText = (view: object): SharedText => sharedText(view, () => false);

/** The text of a proposal: its operations' and attestations' values are any JSON. */
export const proposalText = (proposal: ProposalView): SharedText => sharedText(proposal, isBigProposal);

/** A message of these parts: one text when every part is made, else the promise of its parts. */
export function eventMessage(parts: readonly SharedText[]): EventMessage {
  if (parts.every((p) => typeof p === "string")) return (parts as string[]).join("");
  return Promise.all(parts);
}
