/** Families where work or use is paid for: milestones, service agreements, subscriptions, licences, bounties. */
import { type Draft, type Party, signedBy, who, whose } from "./Draft.js";
import type { Family } from "./Family.js";
import { after, deadlineExit, disputePart, mutualCancel, needDeadline } from "./parts.js";
import type { Deal } from "./readDeal.js";

const ARBITER_WORDS = ["arbiter", "arbitrator", "mediator", "judge", "referee"];
const CLIENT_WORDS = [
  "client",
  "customer",
  "employer",
  "startup",
  "company",
  "homeowner",
  "nonprofit",
  "shop",
  "business",
];
const WORKER_WORDS = [
  "contractor",
  "freelancer",
  "developer",
  "designer",
  "builder",
  "agency",
  "consultant",
  "provider",
  "supplier",
  "artist",
  "caterer",
];

export const milestoneFamily: Family = {
  id: "milestone",
  summary: "Work paid in stages: the contractor delivers each milestone, the client approves and pays it",
  hints: ["milestone", "milestones", "staged", "phased", "tranches", "installments"],
  keywords: [
    [/\bmilestones?\b/, 5],
    [/\b(phases?|stages?|tranches?|deliverables)\b/, 3],
    [/\b(installments?|instalments?)\b/, 2],
    [
      /\b(\d+|two|three|four|five|six|seven|eight|nine|ten) (?:\w+ )?(milestones?|phases?|stages?|installments?|instalments?|tranches?|deliverables|payments)\b/,
      3,
    ],
    [/\b(each|every)\b.*\b(deliver\w*|part|phase|stage)\b/, 1],
  ],
  roles: [
    { role: "client", words: CLIENT_WORDS, relations: ["client", "payer", "approver", "buyer"] },
    { role: "contractor", words: WORKER_WORDS, relations: ["worker", "payee", "seller"] },
    { role: "arbiter", words: ARBITER_WORDS, relations: ["arbiter"], when: (deal) => deal.arbiter },
  ],
  build(d, deal) {
    const client = d.party("client");
    const contractor = d.party("contractor");
    const n = deal.stages ?? 2;
    if (deal.stages === null) d.warnings.push("the description gives no number of milestones: assumed 2");
    d.step("init", "funded", "FUND", signedBy(client));
    let open = "funded";
    const opens: string[] = [];
    const delivered: string[] = [];
    for (let i = 1; i <= n; i++) {
      const done = `m${i}_delivered`;
      opens.push(open);
      delivered.push(done);
      d.step(open, done, `DELIVER_M${i}`, signedBy(contractor));
      d.step(done, `m${i}_paid`, `PAY_M${i}`, signedBy(client));
      d.step(done, open, `REJECT_M${i}`, signedBy(client));
      open = `m${i}_paid`;
    }
    mutualCancel(d, opens, [client, contractor]);
    if (d.has("arbiter")) {
      disputePart(d, delivered, [contractor], d.party("arbiter"), [
        ["AWARD", "awarded", "A disputed milestone is paid"],
      ]);
    }
    if (deal.deadline !== null) {
      deadlineExit(d, deal, {
        from: opens,
        to: "terminated",
        action: "TERMINATE",
        by: client,
        meaning: `${who(client)} stops the remaining milestones`,
        against: [contractor],
      });
    }
    const paid = Array.from({ length: n }, (_, i) => `m${i + 1}_paid`);
    d.rule(
      paid.map((s) => `always(!${s} -> [-${signedBy(client)}] !${s})`).join(" & "),
      `Every milestone is paid only with ${whose(client)} signature`,
      client,
    );
    d.rule(
      `${paid.map((s, i) => `always(${delivered[i]} -> <+${signedBy(client)}> ${s})`).join(" & ")} & always((${delivered.join(" | ")}) -> [] !cancelled)`,
      `A delivered milestone can always be paid by ${who(client)}, and is never cancelled`,
      contractor,
    );
  },
};

/** A penalty the client claims when the work is late or short: objective with a deadline or an arbiter. */
function penaltyPart(d: Draft, deal: Deal, client: Party, provider: Party) {
  d.uses("penalty");
  if (deal.deadline !== null) {
    needDeadline(d, deal, "the delivery deadline after which a penalty applies");
    d.step("active", "penalized", "PENALTY", signedBy(client), after);
    d.guard("penalized", after, "A penalty is claimed only after the deadline has passed", provider);
    d.step("penalized", "penalty_paid", "SETTLE_PENALTY", signedBy(provider));
  } else if (d.has("arbiter")) {
    d.step("active", "penalty_claimed", "CLAIM_PENALTY", signedBy(client));
    d.step("penalty_claimed", "penalized", "PENALTY", signedBy(d.party("arbiter")));
    d.step("penalty_claimed", "active", "REJECT_PENALTY", signedBy(d.party("arbiter")));
    d.guard(
      "penalized",
      signedBy(d.party("arbiter")),
      `A penalty applies only by ${whose(d.party("arbiter"))} decision`,
    );
    d.step("penalized", "penalty_paid", "SETTLE_PENALTY", signedBy(provider));
  } else {
    d.step("active", "penalty_claimed", "CLAIM_PENALTY", signedBy(client));
    d.step("penalty_claimed", "penalized", "ACCEPT_PENALTY", signedBy(provider));
    d.step("penalty_claimed", "active", "CONTEST_PENALTY", signedBy(provider));
    d.guard("penalized", signedBy(provider), `A penalty applies only when ${who(provider)} accepts it`, provider);
    d.step("penalized", "penalty_paid", "SETTLE_PENALTY", signedBy(provider));
    d.warnings.push(
      "the description gives neither a deadline nor an arbiter to decide a breach: a penalty applies only when the provider accepts the claim",
    );
  }
}

export const serviceFamily: Family = {
  id: "service_agreement",
  summary: "A provider delivers a service, the client approves it or asks for changes (optional penalties, deadline)",
  hints: ["service", "services", "service_agreement", "sla", "consulting", "contract_work"],
  keywords: [
    [/\bservice agreement\b|\bsla\b|\buptime\b/, 5],
    [/\b(services?|consult\w*|cleans?|cleaning|repairs?|maintenance|monitoring|catering|hires?|hired|support)\b/, 3],
    [/\b(freelanc\w*|designer|developer|consultant|agency|contractor|company)\b/, 2],
    [/\b(designs?|develops?|builds?|delivers?|website|logo|app)\b/, 1],
    [/\b(approv\w*|changes|revisions?)\b/, 1],
    [/\b(penalt\w*|late delivery|costs? them)\b/, 2],
  ],
  roles: [
    { role: "client", words: CLIENT_WORDS, relations: ["client", "payer", "approver", "buyer"] },
    { role: "provider", words: WORKER_WORDS, relations: ["worker", "payee", "seller"] },
    { role: "arbiter", words: ARBITER_WORDS, relations: ["arbiter"], when: (deal) => deal.arbiter },
  ],
  build(d, deal) {
    const client = d.party("client");
    const provider = d.party("provider");
    d.uses("service");
    d.step("init", "proposed", "PROPOSE", signedBy(client));
    d.step("proposed", "active", "ACCEPT", signedBy(provider));
    d.step("proposed", "withdrawn", "WITHDRAW", signedBy(client));
    d.step("active", "delivered", "DELIVER", signedBy(provider));
    d.step("delivered", "active", "REQUEST_CHANGES", signedBy(client));
    d.step("delivered", "completed", "APPROVE", signedBy(client));
    if (deal.penalty) penaltyPart(d, deal, client, provider);
    else if (deal.deadline !== null) {
      deadlineExit(d, deal, {
        from: ["active"],
        to: "terminated",
        action: "TERMINATE",
        by: client,
        meaning: `${who(client)} ends the agreement when the work is late`,
        against: [provider],
      });
    }
    if (d.has("arbiter")) {
      disputePart(d, ["delivered"], [provider], d.party("arbiter"), [
        ["AWARD", "awarded", "Disputed work is accepted"],
      ]);
    }
    d.guard("completed", signedBy(client), `The work is complete only when ${who(client)} approves it`, client);
    d.guard("active", signedBy(provider), `${who(provider)} is bound only after accepting`, provider);
    d.rule(
      `always(delivered -> <+APPROVE +${signedBy(client)}> completed)`,
      `Delivered work can always be approved`,
      provider,
    );
  },
};

export const subscriptionFamily: Family = {
  id: "subscription",
  summary:
    "Recurring payments (subscriptions, retainers): the subscriber renews and cancels; suspension only after the paid period",
  hints: ["subscription", "recurring", "retainer", "membership"],
  keywords: [
    [/\b(subscri\w*|membership|retainer)\b/, 5],
    [/\b(monthly|weekly|yearly|annual\w*|recurring|renew\w*|every month|per month|each month)\b/, 3],
    [/\b(rent\w*)\b/, 2],
    [/\b(newsletter|streaming|plan|gym|tenant|landlord|cancel\w*)\b/, 1],
  ],
  roles: [
    {
      role: "provider",
      words: [
        "provider",
        "landlord",
        "publisher",
        "gym",
        "creator",
        "service",
        "lawyer",
        "consultant",
        "agency",
        "vendor",
      ],
      relations: ["payee", "owner", "worker", "seller", "second"],
    },
    {
      role: "subscriber",
      words: ["subscriber", "tenant", "member", "customer", "reader", "user", "client"],
      relations: ["payer", "renter", "client", "buyer", "first"],
    },
  ],
  build(d, deal) {
    const provider = d.party("provider");
    const subscriber = d.party("subscriber");
    const paidUntil = "/terms/paid_until.datetime";
    d.uses(/\bretainer\b/i.test(deal.text) ? "retainer" : "subscription");
    d.terms.set(paidUntil, "the end of the paid period (each renewal moves it)");
    const renew = [signedBy(subscriber), `modifies(${paidUntil})`];
    d.step("offered", "active", "SUBSCRIBE", signedBy(subscriber));
    d.step("offered", "withdrawn", "WITHDRAW", signedBy(provider));
    d.step("active", "active", "RENEW", ...renew);
    d.step("active", "suspended", "SUSPEND", signedBy(provider), `after(${paidUntil})`);
    d.step("suspended", "active", "RENEW", ...renew);
    d.step("active", "cancelled", "CANCEL", signedBy(subscriber));
    d.step("suspended", "cancelled", "CANCEL", signedBy(subscriber));
    d.guard(
      "suspended",
      `after(${paidUntil})`,
      "The service is suspended only after the paid period has ended",
      subscriber,
    );
    d.guard("cancelled", signedBy(subscriber), `Only ${who(subscriber)} can cancel`, subscriber);
    d.guard(
      "active",
      signedBy(subscriber),
      `The service is active only through ${whose(subscriber)} signed subscription or renewal`,
      provider,
    );
    d.rule(
      `always(suspended -> [-modifies(${paidUntil})] !active)`,
      "A suspended service comes back only with a renewal that moves the paid-until date",
      provider,
    );
  },
};

export const licenceFamily: Family = {
  id: "licence",
  summary: "A licensor grants use for a fee and a term; the licence expires after the term (optional revocation)",
  hints: ["licence", "license", "licensing", "licencing"],
  keywords: [
    [/\b(licen[cs]\w*)\b/, 5],
    [/\b(right to use|usage rights|royalt\w*|permission to use)\b/, 3],
  ],
  roles: [
    {
      role: "licensor",
      words: ["licensor", "author", "artist", "photographer", "owner", "creator"],
      relations: ["licensor", "owner", "payee", "seller"],
    },
    {
      role: "licensee",
      words: ["licensee", "magazine", "publisher", "company", "customer", "user"],
      relations: ["licensee", "renter", "payer", "buyer"],
    },
  ],
  build(d, deal) {
    const licensor = d.party("licensor");
    const licensee = d.party("licensee");
    const term = "/terms/term_end.datetime";
    d.uses("licence");
    d.terms.set(term, "the end of the licence term");
    d.step("init", "offered", "GRANT", signedBy(licensor));
    d.step("offered", "licensed", "ACCEPT", signedBy(licensee));
    d.step("licensed", "licensed", "RENEW", signedBy(licensee), `modifies(${term})`);
    d.step("licensed", "expired", "EXPIRE", signedBy(licensor), `after(${term})`);
    d.step("licensed", "ended", "TERMINATE", signedBy(licensee));
    d.guard(
      "licensed",
      signedBy(licensee),
      `The licence starts only when ${who(licensee)} accepts its terms and fee`,
      licensor,
    );
    d.guard("expired", `after(${term})`, "The licence expires only after its term", licensee);
    if (/\b(revok\w*|terminat\w*|breach\w*|breaks?|violat\w*|isn'?t paid|not paid|unpaid)\b/i.test(deal.text)) {
      d.uses("revocation");
      if (d.has("arbiter")) {
        d.step("licensed", "revoked", "REVOKE", signedBy(licensor), signedBy(d.party("arbiter")));
        d.guard(
          "revoked",
          signedBy(d.party("arbiter")),
          `A revocation needs ${whose(d.party("arbiter"))} agreement`,
          licensee,
        );
      } else if (/\b(isn'?t paid|not paid|unpaid|fee)\b/i.test(deal.text) && /\brevok/i.test(deal.text)) {
        const paid = "/terms/paid_until.datetime";
        d.terms.set(paid, "the end of the period the fee covers");
        d.step("licensed", "revoked", "REVOKE", signedBy(licensor), `after(${paid})`);
        d.guard("revoked", `after(${paid})`, "The licence is revoked only once the paid period has run out", licensee);
      } else {
        d.step("licensed", "revoked", "REVOKE", signedBy(licensor));
        d.warnings.push(
          "revocation is the licensor's call alone: add an arbiter to make a breach decided by a third party",
        );
      }
      d.guard("revoked", signedBy(licensor), `Only ${who(licensor)} can revoke the licence`, licensee);
    }
    d.guard("ended", signedBy(licensee), `Only ${who(licensee)} can end the licence early`, licensee);
  },
};

export const bountyFamily: Family = {
  id: "bounty",
  summary:
    "A sponsor funds a reward; registered hunters submit; the sponsor accepts one (optional deadline to take it back)",
  hints: ["bounty", "reward", "bug_bounty", "prize"],
  keywords: [
    [/\b(bount\w*)\b/, 5],
    [/\b(reward|prize|whoever|first (?:accepted|valid|to))\b/, 3],
    [/\b(submits?|submission|exploit|fix\w*|solution)\b/, 1],
  ],
  roles: [
    { role: "sponsor", words: ["sponsor", "maintainer", "poster"], relations: ["sponsor", "by", "payer", "client"] },
    { role: "hunters", words: ["hunters"], group: true },
  ],
  build(d, deal) {
    const sponsor = d.party("sponsor");
    const hunters = d.party("hunters");
    d.uses("bounty");
    d.step("init", "open", "FUND", signedBy(sponsor));
    d.step("open", "submitted", "SUBMIT", signedBy(hunters));
    d.step("submitted", "open", "REJECT", signedBy(sponsor));
    d.step("submitted", "paid", "ACCEPT", signedBy(sponsor));
    d.guard("paid", signedBy(sponsor), `The reward is paid only when ${who(sponsor)} accepts a submission`, sponsor);
    d.guard("submitted", signedBy(hunters), "Only a registered hunter (a key under /hunters) can submit", sponsor);
    d.rule(
      "always(submitted -> [] !reclaimed)",
      "A pending submission cannot be cut off by taking the reward back",
      hunters,
    );
    if (deal.deadline !== null || deal.refund) {
      deadlineExit(d, deal, {
        from: ["open"],
        to: "reclaimed",
        action: "RECLAIM",
        by: sponsor,
        meaning: `${who(sponsor)} takes the reward back`,
        against: [hunters],
      });
    }
  },
};
