import { partyName } from "../parseAnswer.js";
import type { RoleSpec } from "./Family.js";
import { properNames } from "./properNames.js";

const N = "([A-Z][a-z]+)";
/** Gap between the two parties of a relation: a few words, never a sentence end. */
const GAP = "[^.;:!?]*?";
/** The second party after a preposition, possibly introduced by a possessive and a noun ("from his sister Vera"). */
const M = `(?:(?:his|her|their|my|our|the) )?(?:[a-z]+ )?${N}`;

/**
 * Directional phrases, each naming generic relation roles ("A lends B": lender, borrower).
 * A family's role takes a generic role when it lists it in `relations`.
 */
const RELATIONS: Array<[RegExp, string, string?]> = [
  [
    new RegExp(`\\b${N} (?:buys|purchases|orders|is buying|wants to buy|will buy|is purchasing)\\b${GAP}\\bfrom ${M}`),
    "buyer",
    "seller",
  ],
  [new RegExp(`\\b${N} (?:sells|is selling|wants to sell|will sell|ships)\\b${GAP}\\bto ${M}`), "seller", "buyer"],
  [new RegExp(`\\b${N} (?:lends|loans|is lending|will lend)\\s+${N}`), "lender", "borrower"],
  [new RegExp(`\\b${N} (?:borrows|is borrowing|will borrow)\\b${GAP}\\bfrom ${M}`), "borrower", "lender"],
  [new RegExp(`\\b${N} owes ${N}`), "borrower", "lender"],
  [new RegExp(`\\b${N} (?:rents|leases) out\\b${GAP}\\bto ${M}`), "owner", "renter"],
  [new RegExp(`\\b${N} (?:rents|leases)\\b${GAP}\\bfrom ${M}`), "renter", "owner"],
  [new RegExp(`\\b${N} (?:rents|leases)\\b${GAP}\\bto ${M}`), "owner", "renter"],
  [new RegExp(`\\b${N} (?:licenses|licences|grants)\\b${GAP}\\bto ${M}`), "licensor", "licensee"],
  [
    new RegExp(`\\b${N} (?:hires|hired|engages|commissions|retains|keeps)\\s+(?:the \\w+ |an? \\w+ )?${N}`),
    "client",
    "worker",
  ],
  [new RegExp(`\\b${N} commissions\\b${GAP}\\bfrom ${M}`), "client", "worker"],
  [
    new RegExp(
      `\\b${N}(?:'s \\w+)? (?:agrees to |will |must |promises to |has to |is to )?(?:provides?|delivers?|builds?|designs?|develops?|cleans?|repairs?|fix(?:es)?|renovates?|offers?|performs?|does|do|writes?|paints?|works?|supplies|supply)\\b${GAP}\\b(?:for|to) ${M}`,
    ),
    "worker",
    "client",
  ],
  [
    new RegExp(
      `\\b${N} (?:agrees to |will |must |promises to |has to |is to )?(?:builds?|designs?|cleans?|repairs?|fix(?:es)?|renovates?|paints?) ${N}'s\\b`,
    ),
    "worker",
    "client",
  ],
  [new RegExp(`\\b${N} (?:wants|orders|needs|gets|receives|takes)\\b${GAP}\\bfrom ${M}`), "buyer", "seller"],
  [new RegExp(`\\b${N} (?:subscribes|signs up|is subscribing)\\b${GAP}\\b(?:to|with|at) ${N}`), "payer", "payee"],
  [new RegExp(`\\b${N} pays (?:back )?(?:[a-z]+ )?${N}\\b`), "payer", "payee"],
  [new RegExp(`\\b${N} (?:pays|sends|hands|gives|transfers)\\b${GAP}\\bto ${N}`), "payer", "payee"],
  [new RegExp(`\\b${N} hands ${N}`), "payer", "payee"],
  [new RegExp(`\\bpaid by ${N}`), "payer"],
  [new RegExp(`\\bbetween ${N} and ${N}`), "first", "second"],
  [new RegExp(`\\b${N} and ${N} (?:bet|wager|swap|trade|exchange|agree|want|make|co-sign|cosign)`), "first", "second"],
  [new RegExp(`\\b${N} (?:bets|wagers|swaps|trades|exchanges)\\b${GAP}\\bwith ${N}`), "first", "second"],
  [new RegExp(`\\b${N} (?:arbitrates|mediates|judges|decides|settles|resolves)\\b`), "arbiter"],
  [new RegExp(`\\b${N} (?:approves|accepts)\\b`), "approver"],
  [new RegExp(`\\b(?:posted|offered|funded|sponsored|run|launched|started|set up) by ${N}`), "sponsor"],
  [new RegExp(`\\b${N} (?:posts|offers|sponsors|funds|launches|runs)\\b`), "sponsor"],
  [new RegExp(`\\bby ${N}\\b`), "by"],
  [new RegExp(`\\b(?:go|goes|pass|passes|passed|transferred|left) to (?:his |her |their |my )?(?:\\w+ )?${N}`), "heir"],
  [new RegExp(`\\bfrom ${N} to ${N}`), "giver", "receiver"],
];

export interface FoundParties {
  /** Role → party name (lower case). */
  names: Record<string, string>;
  /** Proper names found, in order of appearance. */
  people: string[];
  /** Roles that got no name from the text (they are called by a role word). */
  unnamed: string[];
}

/** Matches a role word whatever the case of its first letter ("Tenant Tom", "the tenant Tom"). */
function wordPattern(words: readonly string[]): string {
  return words
    .map((w) => `[${w[0]!.toUpperCase()}${w[0]!.toLowerCase()}]${w.slice(1).replace(/ /g, "\\s+")}`)
    .join("|");
}

/** Patterns that bind a name to a role word: "Carol as arbiter", "the seller Bob", "Olivia (mediator)". */
function explicitPatterns(words: readonly string[]): RegExp[] {
  const w = `(?:${wordPattern(words)})`;
  const det = "(?:[Tt]he |[Aa]n? |[Oo]ur |[Hh]er |[Hh]is |[Tt]heir |[Mm]y )";
  return [
    new RegExp(`\\b${N}(?:'s)?,? (?:acts |will act |serves |is acting |is named )?as ${det}?${w}\\b`),
    new RegExp(`\\b${N},? (?:is |will be )${det}${w}\\b`),
    new RegExp(`\\b${N},? ${det}${w}\\b`),
    new RegExp(`\\b${N} \\(${det}?${w}\\)`),
    new RegExp(`\\b${det}?${w}(?:s)?,? ${N}\\b`),
    new RegExp(`\\b${N}'s ${w}\\b`),
    new RegExp(`\\b${w} (?:owned|run|managed|represented) by ${N}`),
  ];
}

/**
 * Binds the roles of a family to the parties a description names: explicit role words
 * first ("Tenant Tom", "Carol as arbiter"), then directional phrases ("Alice buys … from
 * Bob"), then the remaining names in order of appearance. A role with no name keeps the word
 * the text uses for it ("tenant") or its role name, and is reported in `unnamed`.
 */
export function findParties(text: string, roles: readonly RoleSpec[]): FoundParties {
  const roleWords = new Set(roles.flatMap((r) => r.words.flatMap((w) => w.split(" "))));
  const people = properNames(text, roleWords);
  const names: Record<string, string> = {};
  const taken = new Set<string>();
  const assign = (role: string, raw: string | undefined): boolean => {
    const name = raw === undefined ? "" : partyName(raw);
    if (name === "" || !people.includes(name) || names[role] !== undefined || taken.has(name)) return false;
    names[role] = name;
    taken.add(name);
    return true;
  };
  const singles = roles.filter((r) => !r.group);
  for (const r of singles) {
    for (const re of explicitPatterns(r.words)) {
      if (names[r.role] !== undefined) break;
      for (const m of text.matchAll(new RegExp(re.source, "g"))) if (assign(r.role, m[1])) break;
    }
  }
  for (const [re, g1, g2] of RELATIONS) {
    const m = re.exec(text);
    if (m === null) continue;
    for (const [generic, raw] of [
      [g1, m[1]],
      [g2, m[2]],
    ] as const) {
      if (generic === undefined) continue;
      const role = singles.find((r) => names[r.role] === undefined && (r.relations ?? []).includes(generic));
      if (role !== undefined) assign(role.role, raw);
    }
  }
  const rest = people.filter((p) => !taken.has(p));
  const unnamed: string[] = [];
  for (const r of singles) {
    if (names[r.role] !== undefined) continue;
    // A role word the text uses ("the tenant") is a better name than a stray proper name.
    const used = r.words.find((w) => new RegExp(`\\b${w}s?\\b`, "i").test(text));
    const next = used === undefined ? rest.shift() : undefined;
    if (next !== undefined) {
      names[r.role] = next;
      taken.add(next);
      continue;
    }
    const word = partyName(used ?? r.role);
    names[r.role] = Object.values(names).includes(word) ? r.role : word;
    unnamed.push(r.role);
  }
  return { names, people, unnamed };
}
