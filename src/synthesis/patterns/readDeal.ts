/**
 * What a description says beyond its family and parties: a deadline, an arbiter, a refund
 * path, counts (milestones, quorum), penalties. Deterministic keyword reading.
 */

export interface Deal {
  text: string;
  /** The phrase naming a deadline ("by June 1", "within 7 days"), if any. */
  deadline: string | null;
  arbiter: boolean;
  refund: boolean;
  penalty: boolean;
  /** A count of stages ("three milestones", "in 4 tranches"), if any. */
  stages: number | null;
  /** "n of m", "both", "all", "majority": n and m when said. */
  quorum: { n: number | null; m: number | null; all: boolean; majority: boolean };
  /** Amounts mentioned ("500 dollars", "2 BTC"), kept for a warning: the model does not enforce them. */
  amounts: string[];
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
export const NUM = "(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)";

export function num(word: string | undefined): number | null {
  if (word === undefined) return null;
  const n = NUMBER_WORDS[word.toLowerCase()] ?? Number(word);
  return Number.isInteger(n) ? n : null;
}

const MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december";
const DEADLINE = new RegExp(
  [
    `\\b(?:by|before|until|no later than|within|deadline(?: of)?|due(?: on| by| in)?)\\s+(?:the\\s+)?(?:end of (?:the )?(?:month|year|week|${MONTHS})|${MONTHS}(?:\\s+\\d{1,2})?|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:${MONTHS})|\\d+\\s+(?:days?|weeks?|months?|years?)|${NUM}\\s+(?:days?|weeks?|months?|years?)|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next \\w+|\\d{4}-\\d{2}-\\d{2}|[a-z]+ \\d{1,2})`,
    `\\b(?:after|for|in)\\s+${NUM}\\s+(?:days?|weeks?|months?|years?)`,
    "\\b(?:deadline|due date|expir\\w*|ends? after|time limit|doesn'?t check in|stops? (?:pinging|checking in))",
  ].join("|"),
  "i",
);

/** Reads the features of a description. */
export function readDeal(text: string): Deal {
  const lower = text.toLowerCase();
  const stage = new RegExp(
    `\\b${NUM}[- ](?:\\w+ )?(?:milestones?|phases?|stages?|deliverables|installments?|instalments?|tranches?|parts|steps)\\b`,
    "i",
  ).exec(text);
  const stageN = num(stage?.[1]);
  const of = new RegExp(`\\b${NUM}[- ]of[- ](?:the |our |its |all )?${NUM}\\b`, "i").exec(text);
  const anyOf = new RegExp(`\\b(?:any|at least)\\s+${NUM}\\b`, "i").exec(text);
  const groupOf = new RegExp(
    `\\b${NUM}\\s+(?:\\w+\\s+)?(?:keyholders|signers|signatories|directors|trustees|members|reviewers|owners|partners|people|judges|officers|maintainers|admins|founders|guardians)\\b`,
    "i",
  ).exec(text);
  const committeeOf = new RegExp(`\\b(?:committee|board|panel|council|team|group) of ${NUM}\\b`, "i").exec(text);
  const approvals = new RegExp(`\\b${NUM}\\s+(?:approvals|signatures|votes|of them)\\b`, "i").exec(text);
  let n = num(of?.[1]) ?? num(anyOf?.[1]) ?? num(approvals?.[1]);
  const m = num(of?.[2]) ?? num(groupOf?.[1]) ?? num(committeeOf?.[1]);
  if (n !== null && m !== null && n > m) n = null;
  return {
    text,
    deadline: DEADLINE.exec(text)?.[0] ?? null,
    arbiter:
      /\b(arbit\w*|mediat\w*|disputes?|disagree\w*|judge|referee|settles? (?:any )?(?:dispute|disagreement)s?|decides)\b/i.test(
        text,
      ),
    refund:
      /\b(refund\w*|money back|get (?:it|the money|his money|her money|their money) back|take\w* (?:it|the \w+) back|reclaim\w*|walk away)\b/i.test(
        text,
      ),
    penalty:
      /\b(penalt\w*|late (?:fee|delivery)|liquidated damages|costs? them|fine[sd]?|compensat\w*|credit back)\b/i.test(
        lower,
      ),
    stages: stageN !== null && stageN >= 1 && stageN <= 12 ? stageN : null,
    quorum: {
      n,
      m,
      all: /\b(all|both|every one|everyone|unanim\w*|whole (?:board|committee))\b.{0,30}\b(sign|approv|agree|consent)|\b(sign|approv)\w*\b.{0,30}\b(of all|all of|by all|by both|from all|from both)\b|\bmust all\b|\bboth signatures\b|\bwhole (board|committee)\b/i.test(
        text,
      ),
      majority: /\bmajority\b/i.test(text),
    },
    amounts: [
      ...text.matchAll(
        /(?:[$€£]\s?\d[\d,.]*\s*(?:k|m)?|\b\d[\d,.]*\s*(?:%|percent|dollars?|euros?|pounds?|usd|eur|gbp|eth|btc|dot|tokens?|usdc|sats?))/gi,
      ),
    ].map((x) => x[0].trim()),
  };
}
