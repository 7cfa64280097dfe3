/** Families where value is held and exchanged: escrow, deposit, swap, loan, wager. */
import { signedBy, who, whose } from "./Draft.js";
import type { Family } from "./Family.js";
import { after, before, deadlineExit, disputePart, mutualCancel, needDeadline } from "./parts.js";

const ARBITER_WORDS = ["arbiter", "arbitrator", "mediator", "judge", "referee", "escrow agent", "notary"];

export const escrowFamily: Family = {
  id: "escrow",
  summary:
    "A buyer's payment is held until the seller delivers and the buyer releases it (optional arbiter, deadline refund)",
  hints: ["escrow", "purchase", "sale", "buy", "sell"],
  keywords: [
    [/\bescrow/, 4],
    [/\b(buys?|buying|bought|purchas\w*|sells?|selling|sold|seller|buyer|vendor)\b/, 3],
    [/\b(held|hold|holds|locked|until\b.*\b(confirms?|receives?|got|arrives?|arrived))\b/, 2],
    [/\bpays? \w+ .*\bfor (?:a|an|the|his|her|their)\b/, 2],
    [/\b(goods|item|tickets?|car|bike|laptop|camera|painting|domain|sneakers|phone)\b/, 1],
    [/\b(arbiter|arbitrat\w*|mediat\w*|dispute\w*)\b/, 1],
  ],
  roles: [
    { role: "buyer", words: ["buyer", "purchaser", "customer"], relations: ["buyer", "payer", "client", "first"] },
    { role: "seller", words: ["seller", "vendor", "merchant"], relations: ["seller", "payee", "worker", "second"] },
    { role: "arbiter", words: ARBITER_WORDS, relations: ["arbiter"], when: (deal) => deal.arbiter },
  ],
  build(d, deal) {
    const buyer = d.party("buyer");
    const seller = d.party("seller");
    d.uses("escrow");
    d.step("init", "deposited", "DEPOSIT", signedBy(buyer));
    if (deal.deadline !== null) d.step("deposited", "delivered", "DELIVER", signedBy(seller), before);
    else d.step("deposited", "delivered", "DELIVER", signedBy(seller));
    d.step("delivered", "released", "RELEASE", signedBy(buyer));
    mutualCancel(d, ["deposited"], [buyer, seller]);
    if (d.has("arbiter")) {
      disputePart(d, ["deposited", "delivered"], [buyer, seller], d.party("arbiter"), [
        ["REFUND", "refunded", `${who(buyer)} is refunded`],
        ["AWARD", "awarded", `${who(seller)} is paid after a dispute`],
      ]);
    }
    if (deal.deadline !== null) {
      deadlineExit(d, deal, {
        from: ["deposited"],
        to: "reclaimed",
        action: "RECLAIM",
        by: buyer,
        meaning: `${who(buyer)} takes the payment back when nothing was delivered`,
        against: [seller],
      });
    } else if (deal.refund && !d.has("arbiter")) {
      d.uses("refund");
      d.step("deposited", "refunded", "REFUND", signedBy(seller));
      d.guard("refunded", signedBy(seller), `A refund needs ${whose(seller)} signature`, seller);
    }
    d.guard("released", signedBy(buyer), `The payment is released only with ${whose(buyer)} signature`, buyer);
    d.rule(
      `always(delivered -> <+${signedBy(buyer)}> released)`,
      `Once ${who(seller)} has delivered, ${who(buyer)} can always release the payment`,
      seller,
    );
  },
};

export const depositFamily: Family = {
  id: "deposit",
  summary:
    "A security deposit held for the owner and returned to the payer (damage claims need agreement or an arbiter)",
  hints: ["deposit", "security_deposit", "rental_deposit", "damage_deposit"],
  keywords: [
    [/\b(security|damage|rental|rent|tenancy|lease)\s+deposit\b/, 5],
    [
      /^(?=.*\bdeposit\b)(?=.*\b(tenant|landlord|landlady|lodger|lease|rent\w*|flat|apartment|move[sd]?[- ]?out|damage\w*)\b)/s,
      3,
    ],
    [/\b(tenant|landlord|landlady|lodger|lease|lessee|lessor|flatmate|roommate)\b/, 2],
    [/\bdeposit\b/, 2],
    [/\b(damage\w*|returned intact|moves? out|move-out|end of the lease)\b/, 2],
  ],
  roles: [
    {
      role: "tenant",
      words: ["tenant", "renter", "lessee", "lodger", "guest", "hirer", "flatmate", "roommate"],
      relations: ["renter", "payer", "buyer", "borrower", "first"],
    },
    {
      role: "landlord",
      words: ["landlord", "landlady", "lessor", "owner", "host"],
      relations: ["owner", "payee", "seller", "lender", "second"],
    },
    {
      role: "arbiter",
      words: [...ARBITER_WORDS, "housing office"],
      relations: ["arbiter"],
      when: (deal) => deal.arbiter,
    },
  ],
  build(d, deal) {
    const tenant = d.party("tenant");
    const landlord = d.party("landlord");
    d.uses("deposit");
    d.step("init", "held", "PAY_DEPOSIT", signedBy(tenant));
    d.step("held", "returned", "RETURN", signedBy(landlord));
    d.step("held", "claimed", "CLAIM_DAMAGES", signedBy(landlord));
    d.step("claimed", "kept", "ACCEPT_CLAIM", signedBy(tenant));
    d.step("claimed", "returned", "RETURN", signedBy(landlord));
    d.guard(
      "kept",
      signedBy(tenant),
      `${who(landlord)} keeps the deposit for damages only when ${who(tenant)} accepts the claim`,
      tenant,
    );
    d.guard("held", signedBy(tenant), `The deposit is held only once ${who(tenant)} has paid it`, landlord);
    if (d.has("arbiter")) {
      disputePart(d, ["claimed"], [tenant, landlord], d.party("arbiter"), [
        ["REFUND", "refunded", "The deposit goes back after a dispute"],
        ["AWARD", "awarded", "The deposit is kept for damages after a dispute"],
      ]);
    }
    if (
      deal.deadline !== null ||
      /\b(end of (?:the )?(?:lease|tenancy|rental)|move[sd]?[- ]?out|moves out)\b/i.test(deal.text)
    ) {
      deadlineExit(d, deal, {
        from: ["held"],
        to: "reclaimed",
        action: "RECLAIM",
        by: tenant,
        meaning: `${who(tenant)} takes the deposit back when ${who(landlord)} has neither returned it nor claimed damages`,
        against: [landlord],
      });
      needDeadline(d, deal, "the end of the lease, after which an unclaimed deposit can be taken back");
    }
    d.rule(
      `always(claimed -> <+${signedBy(landlord)}> returned)`,
      `A claim can always be dropped by returning the deposit`,
      tenant,
    );
  },
};

export const swapFamily: Family = {
  id: "swap",
  summary: "Two parties each lock their side; once both are locked the exchange settles, a lone lock can be taken back",
  hints: ["swap", "atomic_swap", "atomicswap", "exchange", "trade", "barter"],
  keywords: [
    [/\b(swaps?|swapping|atomic\w*|barter\w*)\b/, 4],
    [/\b(exchanges?|exchanging|trades?|trading)\b/, 3],
    [/\bin (exchange|return) for\b|\bfor (his|her|their) \w+/, 2],
    [/\b(fully or not at all|all or nothing|walk away with both)\b/, 2],
  ],
  roles: [
    { role: "party_a", words: ["party_a"], relations: ["first", "payer", "buyer", "seller"] },
    { role: "party_b", words: ["party_b"], relations: ["second", "payee", "seller", "buyer"] },
  ],
  build(d, deal) {
    const a = d.party("party_a");
    const b = d.party("party_b");
    d.uses("swap");
    const timed = deal.deadline !== null || /\b(walk away|expire\w*|time limit)\b/i.test(deal.text);
    const lock = timed ? [before] : [];
    d.step("init", "a_locked", "LOCK_A", signedBy(a), ...lock);
    d.step("init", "b_locked", "LOCK_B", signedBy(b), ...lock);
    d.step("a_locked", "locked", "LOCK_B", signedBy(b), ...lock);
    d.step("b_locked", "locked", "LOCK_A", signedBy(a), ...lock);
    if (timed) {
      d.uses("deadline");
      needDeadline(d, deal, "the time by which both sides must be locked");
      d.step("a_locked", "refunded", "REFUND", signedBy(a), after);
      d.step("b_locked", "refunded", "REFUND", signedBy(b), after);
      d.guard("refunded", after, "A locked side is taken back only after the deadline");
    } else {
      d.step("a_locked", "init", "UNLOCK_A", signedBy(a));
      d.step("b_locked", "init", "UNLOCK_B", signedBy(b));
    }
    d.step("locked", "swapped", "SWAP", signedBy(a));
    d.step("locked", "swapped", "SWAP", signedBy(b));
    d.rule("always(!locked & !swapped -> [] !swapped)", "The exchange settles only after both sides are locked");
    d.rule(
      "always(locked -> [] swapped) & always(locked -> <> swapped)",
      "Once both sides are locked, the exchange can only settle",
    );
    for (const [p, s] of [
      [a, "a_locked"],
      [b, "b_locked"],
    ] as const) {
      const out = timed ? "refunded" : "init";
      d.rule(`always(${s} -> [-${signedBy(p)}] !${out})`, `Only ${who(p)} can take back what ${who(p)} locked`, p);
    }
  },
};

export const loanFamily: Family = {
  id: "loan",
  summary: "A lender lends, the borrower repays before a deadline; after it the lender may claim the collateral",
  hints: ["loan", "lend", "lending", "credit", "borrow"],
  keywords: [
    [/\b(loans?|lends?|lending|lent|borrows?|borrowing|borrowed|borrower|lender|debt|owes)\b/, 4],
    [/\b(repay\w*|pays? (?:it )?back|collateral|interest|defaults?)\b/, 2],
  ],
  roles: [
    { role: "lender", words: ["lender", "creditor", "bank"], relations: ["lender", "payee", "second"] },
    { role: "borrower", words: ["borrower", "debtor"], relations: ["borrower", "payer", "first"] },
  ],
  build(d, deal) {
    const lender = d.party("lender");
    const borrower = d.party("borrower");
    const collateral = /\b(collateral|pledge\w*|security)\b/i.test(deal.text);
    d.uses("loan");
    needDeadline(d, deal, "the repayment deadline");
    let open = "init";
    if (collateral) {
      d.uses("collateral");
      d.step("init", "pledged", "PLEDGE_COLLATERAL", signedBy(borrower));
      open = "pledged";
    }
    d.step(open, "lent", "LEND", signedBy(lender));
    const n = deal.stages ?? 1;
    let at = "lent";
    for (let i = 1; i <= n; i++) {
      const to = i === n ? "repaid" : `repaid_${i}`;
      d.step(at, to, n === 1 ? "REPAY" : `REPAY_${i}`, signedBy(borrower), before);
      at = to;
    }
    const unpaid = ["lent", ...Array.from({ length: n - 1 }, (_, i) => `repaid_${i + 1}`)];
    deadlineExit(d, deal, {
      from: unpaid,
      to: "defaulted",
      action: collateral ? "CLAIM_COLLATERAL" : "DEFAULT",
      by: lender,
      meaning: collateral ? `${who(lender)} claims the collateral` : `${who(lender)} declares the loan in default`,
      against: [borrower],
    });
    d.guard("repaid", signedBy(borrower), `The loan is marked repaid only by ${whose(borrower)} repayment`, lender);
    d.guard("repaid", before, `A repayment counts only before the deadline`, lender);
    d.rule(
      "always(repaid -> [] !defaulted)",
      `Once repaid, ${who(borrower)} can no longer be declared in default`,
      borrower,
    );
    if (n > 1) d.uses("installments");
  },
};

export const wagerFamily: Family = {
  id: "wager",
  summary: "Two players stake; an oracle's attestation names the winner; stakes come back if the oracle never answers",
  hints: ["wager", "bet", "betting", "prediction", "oracle"],
  keywords: [
    [/\b(bets?|betting|wagers?|wagering|gambl\w*)\b/, 5],
    [/\b(oracle|prediction|odds|pot)\b/, 3],
    [/\b(match|game|race|election|price of|who wins|winner)\b/, 1],
  ],
  roles: [
    { role: "player_a", words: ["player_a"], relations: ["first", "payer"] },
    { role: "player_b", words: ["player_b"], relations: ["second", "payee"] },
    {
      role: "oracle",
      words: ["oracle", "judge", "referee", "reporter", "data feed", "umpire"],
      relations: ["arbiter"],
    },
  ],
  build(d, deal) {
    const a = d.party("player_a");
    const b = d.party("player_b");
    const oracle = d.party("oracle");
    d.uses("wager");
    d.step("init", "a_staked", "STAKE_A", signedBy(a));
    d.step("init", "b_staked", "STAKE_B", signedBy(b));
    d.step("a_staked", "staked", "STAKE_B", signedBy(b));
    d.step("b_staked", "staked", "STAKE_A", signedBy(a));
    d.step("a_staked", "withdrawn", "WITHDRAW", signedBy(a));
    d.step("b_staked", "withdrawn", "WITHDRAW", signedBy(b));
    const attests = (p: typeof a) => `oracle_attests(/users/${oracle.name}.id, winner, ${p.name})`;
    d.step("staked", "a_won", "SETTLE", attests(a));
    d.step("staked", "b_won", "SETTLE", attests(b));
    for (const [p, s] of [
      [a, "a_won"],
      [b, "b_won"],
    ] as const) {
      d.guard(s, attests(p), `${who(p)} wins the pot only on ${whose(oracle)} attestation that ${p.name} won`);
    }
    d.rule("always(!staked & !a_won & !b_won -> [] !a_won & !b_won)", "Nothing is settled before both stakes are in");
    for (const [p, s] of [
      [a, "a_staked"],
      [b, "b_staked"],
    ] as const) {
      d.rule(`always(${s} -> [-${signedBy(p)}] !withdrawn)`, `Only ${who(p)} can take back a lone stake`, p);
    }
    if (deal.deadline !== null || deal.refund) {
      d.uses("deadline");
      needDeadline(d, deal, "the time after which an unsettled wager can be voided");
      d.step("staked", "voided", "VOID", signedBy(a), after);
      d.step("staked", "voided", "VOID", signedBy(b), after);
      d.guard("voided", after, "An unsettled wager is voided only after the deadline, stakes going back");
    }
  },
};
