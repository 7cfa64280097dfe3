/** Capitalised words that are not parties even in the middle of a sentence. */
const NOT_NAMES = new Set(
  (
    "i a an the this that these those if when then both each either neither after before once until our my their his " +
    "her its we they he she it you there here all every any some no with for and or but on in at by from to of as " +
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august " +
    "september october november december christmas easter spanish english french german italian chinese japanese " +
    "ltd inc llc co corp gmbh dao eth btc usd eur gbp nft api sla ceo cto"
  ).split(" "),
);

/**
 * Words after which a sentence-initial capitalised word is a name ("Alice pays", "Ivan and
 * Judy"): verbs and joiners. "Coffee beans go…", "Security deposit for…" are not names.
 */
const AFTER_NAME = new Set(
  (
    "and or is was will would can could must should may might has had wants needs buys sells pays lends borrows hires " +
    "provides delivers builds designs develops rents leases licenses licences posts hands gives sends ships trades " +
    "swaps exchanges subscribes commissions cleans owes agrees offers runs keeps leaves bets wagers approves accepts " +
    "signs owns manages makes takes gets is's launches starts creates organizes organises raises wins loses holds shares does arbitrates mediates decides settles repays invests donates transfers " +
    "orders purchases writes paints works sponsors funds pledges grants stops checks acts serves promises"
  ).split(" "),
);

/** True for a capitalised word at position `index` that starts a sentence (text start, or after . ! ? : ;). */
function sentenceInitial(text: string, index: number): boolean {
  const before = text.slice(0, index).trimEnd();
  return before === "" || /[.!?:;]$/.test(before);
}

/**
 * Proper names in order of first appearance, lower-cased: capitalised words that are not
 * sentence furniture. A sentence-initial word counts only when a verb or a joiner follows it,
 * or when it also appears mid-sentence.
 */
export function properNames(text: string, exclude: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const midSentence = new Set<string>();
  const candidates: Array<{ word: string; initial: boolean; next: string }> = [];
  for (const m of text.matchAll(/\b([A-Z][a-z]+)('s)?\b(?=(\s*\(|\s*,|\s+([A-Za-z']+))?)/g)) {
    const word = m[1]!.toLowerCase();
    const initial = sentenceInitial(text, m.index!);
    if (!initial) midSentence.add(word);
    const next = m[2] ? "'s" : m[3]?.trim().startsWith("(") || m[3]?.trim() === "," ? m[3].trim() : (m[4] ?? "");
    candidates.push({ word, initial, next: next.toLowerCase() });
  }
  for (const c of candidates) {
    if (NOT_NAMES.has(c.word) || exclude.has(c.word) || out.includes(c.word)) continue;
    if (c.initial && !midSentence.has(c.word) && !(AFTER_NAME.has(c.next) || c.next === "(" || c.next === ","))
      continue;
    out.push(c.word);
  }
  return out;
}
