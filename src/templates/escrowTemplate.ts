import { Parties } from "./Parties.js";
import type { TemplateDefinition, TemplateRule } from "./Template.js";

/**
 * Two-party escrow with an optional arbiter. Protective rules are stated over the states a
 * transition enters and the signatures it carries, never over action labels alone: under
 * potentialist matching (docs/language.md) `[-signed_by(k)] !s` says "every transition that does
 * not carry +signed_by(k) stays out of s", which is exactly "only k's signature leads to s".
 */
export const escrowTemplate: TemplateDefinition = {
  id: "escrow",
  name: "Escrow",
  description:
    "Two-party escrow: the buyer deposits, the seller delivers, the buyer releases. With an arbiter, either party " +
    "may open a dispute that only the arbiter resolves (refund or award); without one, only a mutual cancel exists.",
  parties: ["buyer", "seller", "arbiter"],
  params: [
    { name: "buyer", type: "pubkey", required: true, path: "/users/buyer.id", description: "Pays and releases" },
    { name: "seller", type: "pubkey", required: true, path: "/users/seller.id", description: "Delivers" },
    {
      name: "arbiter",
      type: "pubkey",
      required: false,
      path: "/users/arbiter.id",
      description: "Resolves disputes; without it the escrow has no dispute path",
    },
    { name: "amount", type: "integer", required: false, min: 1, path: "/terms/amount.json", description: "Price" },
    { name: "item", type: "text", required: false, path: "/terms/item.text", description: "What is sold" },
  ],
  exampleValues: { buyer: "", seller: "", arbiter: "" },
  build(values, names) {
    const p = new Parties(names);
    const withArbiter = values.arbiter !== undefined;
    const lines = [
      "initial init",
      `init -> deposited [+DEPOSIT ${p.signed("buyer")}]`,
      `deposited -> delivered [+DELIVER ${p.signed("seller")}]`,
      `delivered -> released [+RELEASE ${p.signed("buyer")}]`,
      `deposited -> cancelled [+CANCEL ${p.signed("buyer")} ${p.signed("seller")}]`,
    ];
    if (withArbiter) {
      for (const from of ["deposited", "delivered"]) {
        for (const role of ["buyer", "seller"]) lines.push(`${from} -> disputed [+DISPUTE ${p.signed(role)}]`);
      }
      lines.push(`disputed -> refunded [+REFUND ${p.signed("arbiter")}]`);
      lines.push(`disputed -> awarded [+AWARD ${p.signed("arbiter")}]`);
    }
    const terminals = withArbiter ? ["released", "cancelled", "refunded", "awarded"] : ["released", "cancelled"];
    for (const s of terminals) lines.push(`${s} -> ${s} []`);

    const rules: TemplateRule[] = [
      {
        protects: "buyer",
        says: `Only ${p.whose("buyer")} signature releases the funds`,
        formula: `always(!released -> [-signed_by(${p.key("buyer")})] !released)`,
      },
      {
        protects: "seller",
        says: `A deposit is cancelled only with ${p.whose("seller")} signature`,
        formula: `always(!cancelled -> [-signed_by(${p.key("seller")})] !cancelled)`,
      },
      {
        protects: "buyer",
        says: `A deposit is cancelled only with ${p.whose("buyer")} signature`,
        formula: `always(!cancelled -> [-signed_by(${p.key("buyer")})] !cancelled)`,
      },
    ];
    if (withArbiter) {
      // Transitions that need neither party's signature: what the arbiter can do alone.
      const noParties = `<-signed_by(${p.key("buyer")}) -signed_by(${p.key("seller")})>`;
      rules.push(
        {
          protects: "all",
          says: `A dispute is resolved only by ${p.who("arbiter")}`,
          formula: `always(disputed -> [-signed_by(${p.key("arbiter")})] disputed)`,
        },
        {
          protects: "seller",
          says: `A refund needs ${p.whose("arbiter")} decision`,
          formula: `always(!refunded -> [-signed_by(${p.key("arbiter")})] !refunded)`,
        },
        {
          protects: "buyer",
          says: `Before delivery ${p.who("buyer")} can escalate to the arbiter without ${p.whose("seller")} signature`,
          formula: `always(deposited -> <-signed_by(${p.key("seller")})> disputed)`,
        },
        {
          protects: "seller",
          says: `After delivery ${p.who("seller")} can escalate to the arbiter without ${p.whose("buyer")} signature`,
          formula: `always(delivered -> <-signed_by(${p.key("buyer")})> disputed)`,
        },
        {
          protects: "all",
          says: `In a dispute ${p.who("arbiter")} can refund or award without either party's signature`,
          formula: `always(disputed -> ${noParties} refunded & ${noParties} awarded)`,
        },
      );
    }
    return { model: `model escrow {\n  ${lines.join("\n  ")}\n}`, rules };
  },
};
