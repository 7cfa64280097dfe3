/** Families of several hands: n-of-m treasuries, committees, crowdfunding, supply chains, inheritance. */
import { type Party, signedBy, who, whose } from "./Draft.js";
import type { Family } from "./Family.js";
import { after, before, deadlineExit, needDeadline } from "./parts.js";
import type { Deal } from "./readDeal.js";

/** n and m of a quorum: said outright ("2-of-3"), or "all", "majority", else 2 (at most m). */
export function quorumOf(deal: Deal, named: number): { n: number; m: number } {
  const q = deal.quorum;
  const m = Math.min(16, Math.max(1, q.m ?? (named >= 2 ? named : q.n !== null ? Math.max(3, q.n) : 3)));
  const n = q.n ?? (q.all ? m : q.majority ? Math.floor(m / 2) + 1 : Math.min(2, m));
  return { n: Math.max(1, Math.min(n, m)), m };
}

/** m named signers at `/<dir>/<name>.id`, or `<prefix>_<i>` when the text names fewer than two. */
function signers(dir: string, prefix: string, people: string[], deal: Deal): Party[] {
  const { m } = quorumOf(deal, people.length);
  const names = people.length >= 2 ? people.slice(0, m) : Array.from({ length: m }, (_, i) => `${prefix}_${i + 1}`);
  return names.map((name) => ({ role: prefix, name, key: `/${dir}/${name}.id` }));
}

export const multisigFamily: Family = {
  id: "multisig",
  summary: "An n-of-m treasury: any keyholder proposes, a spend executes with n of the m signatures",
  hints: ["multisig", "multi_sig", "multisignature", "threshold", "treasury", "joint_account"],
  keywords: [
    [/\b(multi-?sig\w*|multi-?signature|co-?signs?|keyholders?)\b/, 5],
    [
      /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)[- ]of[- ](?:the |our )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b/,
      4,
    ],
    [/\b(treasury|wallet|joint account|shared account|vault|signers|signatories|funds)\b/, 2],
    [/\b(signatures? (are |is )?required|must (all )?sign|spend\w*|move the funds|payments?)\b/, 2],
    [/\b(any|at least) (\d+|two|three|four|five|six|seven)\b.*\b(can|must|may|need|needed)\b/, 3],
  ],
  roles: [],
  cast: (_text, people, deal) => signers("signers", "signer", people, deal),
  build(d, deal) {
    const { n, m } = quorumOf(deal, d.parties.length);
    const any = "any_signed(/signers)";
    const quorum = `threshold(${n}, /signers)`;
    d.step("idle", "proposed", "PROPOSE", any);
    d.step("proposed", "proposed", "PROPOSE", any);
    d.step("proposed", "idle", "WITHDRAW", any);
    d.step("proposed", "executed", "EXECUTE", quorum);
    d.step("executed", "proposed", "PROPOSE", any);
    d.guard("executed", quorum, `Nothing executes without ${n} of the ${m} signers' signatures`);
    d.rule(`always([-${any}] !proposed)`, "Only a signer can put a proposal forward");
    d.warnings.push(`each signer's key goes under /signers (e.g. ${d.parties[0]!.key}); ${n} of ${m} must sign`);
  },
};

export const committeeFamily: Family = {
  id: "committee",
  summary: "Committee approval: an applicant submits, n of the m members approve or reject",
  hints: ["committee", "board", "approval", "governance", "vote", "voting"],
  keywords: [
    [/\b(committee|council|panel|reviewers|jury)\b/, 5],
    [/\b(board)\b/, 3],
    [/\b(approv\w*|vote|votes|voting)\b/, 2],
    [/\b(application|proposals?|grant|hiring|request)\b/, 2],
  ],
  roles: [
    {
      role: "applicant",
      words: ["applicant", "proposer", "requester", "candidate"],
      relations: ["by", "sponsor"],
      when: (deal) => /\b(applica\w*|request\w*|submit\w*|candidat\w*|proposed by|by [A-Z])/.test(deal.text),
    },
  ],
  cast(_text, people, deal) {
    return signers("committee", "member", people, deal);
  },
  build(d, deal) {
    const members = d.parties.filter((p) => p.role === "member");
    const { n, m } = quorumOf(deal, members.length);
    const quorum = `threshold(${n}, /committee)`;
    const applicant = d.has("applicant") ? d.party("applicant") : null;
    const submit = applicant ? signedBy(applicant) : "any_signed(/committee)";
    d.step("open", "submitted", "SUBMIT", submit);
    d.step("submitted", "approved", "APPROVE", quorum);
    d.step("submitted", "rejected", "REJECT", quorum);
    d.step("submitted", "open", "WITHDRAW", submit);
    d.guard("approved", quorum, `Approval needs ${n} of the ${m} committee members`);
    d.guard("rejected", quorum, `Rejection needs ${n} of the ${m} committee members too`);
    if (applicant) {
      d.guard("submitted", signedBy(applicant), `Only ${who(applicant)} submits the application`, applicant);
      d.escape("submitted", "open", members[0]!, `${who(applicant)} can withdraw before a decision`, applicant);
    }
    d.warnings.push(`committee members' keys go under /committee (e.g. ${members[0]!.key}); ${n} of ${m} decide`);
  },
};

export const crowdfundingFamily: Family = {
  id: "crowdfunding",
  summary:
    "Backers pledge to an organizer before a deadline; the goal is declared before it, else backers take refunds",
  hints: ["crowdfunding", "crowdfund", "kickstarter", "fundraiser", "fundraising"],
  keywords: [
    [/\b(crowd-?fund\w*|kickstarter\w*|fundrais\w*|backers?)\b/, 5],
    [/\b(raise money|raising money|pledges|donat\w*)\b/, 2],
    [/\b(campaign|goal|target)\b/, 2],
    [/\brefund\w*/, 1],
  ],
  roles: [
    {
      role: "organizer",
      words: ["organizer", "organiser", "creator", "founder", "director", "campaigner"],
      relations: ["sponsor", "by", "payee", "worker"],
    },
    { role: "backers", words: ["backers"], group: true },
  ],
  build(d, deal) {
    const organizer = d.party("organizer");
    const backers = d.party("backers");
    d.uses("crowdfunding");
    needDeadline(d, deal, "the campaign deadline");
    if (deal.deadline === null)
      d.warnings.push("no deadline in the description: the campaign reads one from /terms/deadline.datetime");
    d.step("init", "funding", "LAUNCH", signedBy(organizer));
    d.step("funding", "funding", "PLEDGE", signedBy(backers), before);
    d.step("funding", "succeeded", "GOAL_REACHED", signedBy(organizer), before);
    d.step("succeeded", "claimed", "CLAIM", signedBy(organizer));
    deadlineExit(d, deal, {
      from: ["funding"],
      to: "refunding",
      action: "REFUND",
      by: backers,
      meaning: "Refunds open",
      against: [organizer],
    });
    d.uses("refund");
    d.step("refunding", "refunding", "REFUND", signedBy(backers));
    d.guard("succeeded", before, "The goal can be declared reached only before the deadline", backers);
    d.guard("claimed", signedBy(organizer), `Only ${who(organizer)} claims the funds`, organizer);
    d.rule("always(refunding -> [] !claimed)", "Once refunds are open the organizer cannot claim the funds", backers);
    d.warnings.push(
      "the hub cannot add up pledges: GOAL_REACHED is the organizer's signed declaration, so backers should check the total before the deadline",
    );
  },
};

const CHAIN_WORDS = [
  "farmer",
  "grower",
  "producer",
  "manufacturer",
  "factory",
  "supplier",
  "exporter",
  "shipper",
  "carrier",
  "courier",
  "importer",
  "customs",
  "warehouse",
  "distributor",
  "wholesaler",
  "roaster",
  "processor",
  "retailer",
  "pharmacy",
  "store",
  "shop",
  "cafe",
  "café",
  "restaurant",
  "customer",
];

export const supplyChainFamily: Family = {
  id: "supply_chain",
  summary: "A multi-party handoff: each holder ships, the next one signs for receipt (or rejects it)",
  hints: ["supply_chain", "supplychain", "handoff", "logistics", "shipment", "chain_of_custody"],
  keywords: [
    [/\b(supply chain|chain of custody|hand(?:ed|s)? (?:over|off)|handoffs?)\b/, 5],
    [/\b(shipment|pallet|batch|cargo|consignment|track\w*)\b/, 3],
    [/\b(manufacturer|shipper|carrier|courier|warehouse|distributor|retailer|roaster|farmer|pharmacy)\b/, 2],
    [/\bhanded (?:from|over|on|to)\b|\bfrom \w+ (?:\w+ )?to \w+ (?:\w+ )?(?:and )?(?:then )?to\b/, 3],
    [/\bthen to\b|\bthrough\b/, 1],
    [/\b(?:moves?|goes|travels?|passes) from\b[^.]*\bto\b[^.]*\bto\b/, 3],
  ],
  roles: [],
  cast(text, people) {
    if (people.length >= 2) return people.slice(0, 8).map((name, i) => ({ role: `holder_${i + 1}`, name }));
    const lower = text.toLowerCase();
    const found = CHAIN_WORDS.map((w) => ({ w, at: lower.search(new RegExp(`\\b${w}\\b`)) }))
      .filter((x) => x.at >= 0)
      .sort((a, b) => a.at - b.at)
      .map((x) => (x.w === "café" ? "cafe" : x.w));
    const names = found.length >= 2 ? found.slice(0, 8) : ["sender", "receiver"];
    return names.map((name, i) => ({ role: `holder_${i + 1}`, name }));
  },
  build(d) {
    const hands = d.parties;
    for (let i = 0; i < hands.length - 1; i++) {
      const from = hands[i]!;
      const to = hands[i + 1]!;
      const at = i === 0 ? "at_1" : `at_${i + 1}`;
      const transit = `transit_${i + 1}`;
      const next = i === hands.length - 2 ? "delivered" : `at_${i + 2}`;
      d.step(at, transit, `SHIP_${i + 1}`, signedBy(from));
      d.step(transit, next, `RECEIVE_${i + 1}`, signedBy(to));
      d.step(transit, "rejected", `REJECT_${i + 1}`, signedBy(to));
      d.guard(transit, signedBy(from), `The goods leave ${who(from)} only with ${whose(from)} signature`, from);
      d.guard(next, signedBy(to), `Receipt by ${who(to)} is recorded only with ${whose(to)} signature`, to, from);
    }
    d.rule("always(delivered -> [] delivered)", "A completed delivery stays delivered");
  },
};

export const inheritanceFamily: Family = {
  id: "inheritance",
  summary:
    "An owner's assets pass to an heir after the owner stops checking in (dead-man switch) or an executor confirms",
  hints: ["inheritance", "dead_man_switch", "deadmanswitch", "will", "estate", "succession"],
  keywords: [
    [
      /\b(dead[- ]man'?s?(?: switch)?|inherit\w*|heirs?|estate|will and testament|passes away|dies|death|beneficiar\w*)\b/,
      5,
    ],
    [
      /\b(check(?:s)?[- ]in|pinging|inactiv\w*|stops? (?:pinging|responding|checking)|log(?:s)? in|logs? on|signs? in|heartbeat|proof of life)\b/,
      3,
    ],
    [/\b(executor|trustee|passes to|go(?:es)? to (?:his|her|their|my))\b/, 2],
  ],
  roles: [
    {
      role: "owner",
      words: ["owner", "holder", "testator", "grandmother", "grandfather", "father", "mother"],
      relations: ["giver", "sponsor", "first", "payer"],
    },
    {
      role: "heir",
      words: [
        "heir",
        "beneficiary",
        "daughter",
        "son",
        "child",
        "brother",
        "sister",
        "wife",
        "husband",
        "spouse",
        "partner",
        "niece",
        "nephew",
      ],
      relations: ["heir", "receiver", "second", "payee"],
    },
    {
      role: "executor",
      words: ["executor", "trustee", "notary", "attorney", "lawyer"],
      relations: ["arbiter"],
      when: (deal) => /\b(executor|trustee|notary|attorney|lawyer|confirm\w*)\b/i.test(deal.text),
    },
  ],
  build(d, deal) {
    const owner = d.party("owner");
    const heir = d.party("heir");
    d.uses("inheritance");
    d.step("alive", "revoked", "REVOKE", signedBy(owner));
    if (d.has("executor")) {
      const executor = d.party("executor");
      d.uses("executor");
      d.step("alive", "confirmed", "CONFIRM_DEATH", signedBy(executor));
      d.step("confirmed", "released", "CLAIM", signedBy(heir));
      d.guard("confirmed", signedBy(executor), `The estate opens only when ${who(executor)} confirms`, owner, heir);
    }
    if (!d.has("executor") || deal.deadline !== null || /\b(check|ping|inactiv|switch)/i.test(deal.text)) {
      d.uses("dead_man_switch");
      needDeadline(d, deal, "the check-in deadline (each check-in moves it)");
      d.step("alive", "alive", "CHECK_IN", signedBy(owner), "modifies(/terms/deadline.datetime)");
      d.step("alive", "released", "CLAIM", signedBy(heir), after);
    }
    d.guard("released", signedBy(heir), `Only ${who(heir)} can claim the assets`, heir);
    d.guard("revoked", signedBy(owner), `Only ${who(owner)} can revoke the arrangement`, owner);
    if (!d.has("executor"))
      d.guard("released", after, `${who(heir)} can claim only after the check-in deadline has passed`, owner);
  },
};
