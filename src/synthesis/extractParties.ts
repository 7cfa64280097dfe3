import { partyName } from "./parseAnswer.js";

/** Roles → words a description may use for them (the first is the template's role name). */
const ROLE_WORDS: Record<string, Record<string, string[]>> = {
  escrow: {
    buyer: ["buyer", "purchaser", "customer"],
    seller: ["seller", "vendor", "merchant"],
    arbiter: ["arbiter", "arbitrator", "mediator", "judge", "referee", "escrow agent"],
  },
  milestone: {
    client: ["client", "customer", "employer", "startup", "company"],
    contractor: ["contractor", "freelancer", "developer", "designer", "builder", "agency"],
  },
  atomic_swap: { party_a: ["party_a"], party_b: ["party_b"] },
  multisig: { signers: ["signers"] },
  subscription: {
    provider: ["provider", "landlord", "publisher", "gym", "owner", "creator", "service"],
    subscriber: ["subscriber", "tenant", "member", "customer", "reader", "user"],
  },
  service_agreement: {
    client: ["client", "customer", "company", "startup", "employer"],
    provider: ["provider", "consultant", "contractor", "freelancer", "agency", "supplier", "designer", "developer"],
  },
};

/** Capitalised words that start sentences or name things, not parties. */
const NOT_NAMES = new Set(
  (
    "a an the this that these those if when then both each either neither after before once until payment payments " +
    "pay service services escrow contract agreement deal trade swap exchange our my their his her its we they he she " +
    "it i you there here one two three four five six seven eight nine ten all every any some no write create make set " +
    "build need needs funds money please with for and or but on in at by from to of as is are will can should must may " +
    "let allow joint freelance recurring atomic milestone milestones multisig subscription monthly weekly yearly " +
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august " +
    "september october november december party parties netflix style new"
  ).split(" "),
);

/** Directional phrases: [template ids, pattern over NAME tokens, role of group 1, role of group 2]. */
const RELATIONS: Array<[string[], RegExp, string, string]> = [
  [
    ["escrow"],
    /\b(N) (?:buys|purchases|orders|is buying|wants to buy|will buy|pays for)\b.*?\bfrom (N)/,
    "buyer",
    "seller",
  ],
  [["escrow"], /\b(N) (?:sells|is selling|wants to sell|will sell)\b.*?\bto (N)/, "seller", "buyer"],
  [["escrow"], /\b(N) pays (N)\b/, "buyer", "seller"],
  [["milestone"], /\b(N) (?:hires|hired|engages|commissions)\b.*?(N)/, "client", "contractor"],
  [["milestone"], /\b(N) pays (N)\b/, "client", "contractor"],
  [["service_agreement"], /\b(N) (?:hires|hired|engages|commissions)\b.*?(N)/, "client", "provider"],
  [["service_agreement"], /\b(N) pays (N)\b/, "client", "provider"],
  [
    ["milestone", "service_agreement"],
    /\b(N) (?:provides|delivers|builds|designs|develops|cleans|repairs|offers|performs|does|writes|paints|works)\b.*?\b(?:for|to) (N)/,
    "contractor|provider",
    "client",
  ],
  [["subscription"], /\b(N) (?:subscribes|signs up|is subscribing)\b.*?\b(?:to|with|at) (N)/, "subscriber", "provider"],
  [["subscription"], /\b(N) rents (?:out )?.*?\bto (N)/, "provider", "subscriber"],
  [["subscription"], /\b(N) rents .*?\bfrom (N)/, "subscriber", "provider"],
  [["subscription"], /\b(N) pays (N)\b/, "subscriber", "provider"],
  [["atomic_swap"], /\b(N) (?:swaps|exchanges|trades)\b.*?\bwith (N)/, "party_a", "party_b"],
];

/** Verbs that say which role one party plays: [template ids, pattern over one NAME, role]. */
const CUES: Array<[string[], RegExp, string]> = [
  [["escrow"], /\b(N) (?:arbitrates|mediates|judges|resolves|decides)\b/, "arbiter"],
  [["milestone", "service_agreement"], /\b(N) (?:approves|accepts|pays|orders)\b/, "client"],
  [
    ["milestone", "service_agreement"],
    /\b(N) (?:delivers|provides|cleans|builds|designs|develops|repairs|performs)\b/,
    "contractor|provider",
  ],
  [["subscription"], /\b(N) (?:subscribes|signs up|can cancel|pays)\b/, "subscriber"],
];

export interface ExtractedParties {
  /** Role → party name (lower case). */
  names: Record<string, string>;
  /** Proper names found, in order of appearance. */
  people: string[];
  /** Roles that got no name from the text (they keep a role word). */
  unnamed: string[];
}

/** Proper names: capitalised words that are not sentence furniture, role words or keywords. */
function properNames(text: string, roleWords: Set<string>): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b([A-Z][a-z]+)(?:'s)?\b/g)) {
    const lower = m[1]!.toLowerCase();
    if (NOT_NAMES.has(lower) || roleWords.has(lower) || out.includes(lower)) continue;
    out.push(lower);
  }
  return out;
}

function roleWordPattern(words: string[]): string {
  return words.map((w) => w.replace(/ /g, "\\s+")).join("|");
}

/**
 * Party names for a template from a description: "Alice buys a bike from Bob" gives buyer
 * alice, seller bob. Explicit roles ("Carol as arbiter", "the seller Bob") win, then
 * directional verbs, then names in order of appearance; a role without a name takes the word
 * the text uses for it ("tenant") or its role name.
 */
export function extractParties(description: string, templateId: string, roles: readonly string[]): ExtractedParties {
  const words = ROLE_WORDS[templateId] ?? {};
  const allRoleWords = new Set(Object.values(words).flat());
  const people = properNames(description, allRoleWords);
  const names: Record<string, string> = {};
  const taken = new Set<string>();
  const assign = (role: string, raw: string | undefined) => {
    const name = raw === undefined ? "" : partyName(raw);
    if (name === "" || !people.includes(name) || names[role] !== undefined || taken.has(name)) return;
    names[role] = name;
    taken.add(name);
  };
  const NAME = "[A-Z][a-z]+";
  for (const [role, synonyms] of Object.entries(words)) {
    const s = roleWordPattern(synonyms);
    const patterns = [
      new RegExp(`\\b(${NAME})(?:'s)?,? (?:acts |will act |serves |is acting )?as (?:the |an? |our )?(?:${s})\\b`),
      new RegExp(`\\b(${NAME}),? (?:is |will be )?(?:the |our |an? )(?:${s})\\b`),
      new RegExp(`\\b(${NAME}) \\((?:the |an? )?(?:${s})\\)`),
      new RegExp(`\\b(?:the |an? |our )?(?:${s}),? (${NAME})\\b`, "i"),
    ];
    for (const re of patterns) assign(role, re.exec(description)?.[1]);
  }
  for (const [ids, re, first, second] of RELATIONS) {
    if (!ids.includes(templateId)) continue;
    const m = new RegExp(re.source.replace(/\(N\)/g, `(${NAME})`)).exec(description);
    if (!m) continue;
    assign(first.split("|").find((r) => roles.includes(r)) ?? first, m[1]);
    assign(second, m[2]);
  }
  for (const [ids, re, role] of CUES) {
    if (!ids.includes(templateId)) continue;
    const m = new RegExp(re.source.replace("(N)", `(${NAME})`)).exec(description);
    assign(role.split("|").find((r) => roles.includes(r)) ?? role, m?.[1]);
  }
  const rest = people.filter((p) => !taken.has(p));
  const unnamed: string[] = [];
  for (const role of roles) {
    if (names[role] !== undefined) continue;
    const next = rest.shift();
    if (next !== undefined) {
      names[role] = next;
      continue;
    }
    // No proper name left: use the word the description uses for this role, if any.
    const used = (words[role] ?? []).find((w) => new RegExp(`\\b${w}s?\\b`, "i").test(description));
    names[role] = used !== undefined && !Object.values(names).includes(partyName(used)) ? partyName(used) : role;
    unnamed.push(role);
  }
  return { names, people, unnamed };
}
