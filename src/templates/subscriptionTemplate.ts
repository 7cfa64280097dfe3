import { Parties } from "./Parties.js";
import type { TemplateDefinition } from "./Template.js";

const PAID_UNTIL = "/terms/paid_until.datetime";

/**
 * A recurring subscription: the subscriber subscribes and renews, each renewal moving the
 * paid-until date (`+modifies` makes the renewal write it); the provider may suspend only once
 * that date has passed; only the subscriber cancels.
 */
export const subscriptionTemplate: TemplateDefinition = {
  id: "subscription",
  name: "Subscription",
  description:
    "Recurring service: the subscriber subscribes and renews (each renewal updates the paid-until date); the provider " +
    "may suspend only after the paid period ends; only the subscriber cancels.",
  parties: ["provider", "subscriber"],
  params: [
    { name: "provider", type: "pubkey", required: true, path: "/users/provider.id", description: "Provides" },
    { name: "subscriber", type: "pubkey", required: true, path: "/users/subscriber.id", description: "Pays" },
    { name: "paid_until", type: "datetime", required: true, path: PAID_UNTIL, description: "End of the paid period" },
    { name: "price", type: "integer", required: false, min: 1, path: "/terms/price.json", description: "Per period" },
    {
      name: "period_days",
      type: "integer",
      required: false,
      default: 30,
      min: 1,
      max: 366,
      path: "/terms/period_days.json",
      description: "Length of a period in days",
    },
    { name: "plan", type: "text", required: false, path: "/terms/plan.text", description: "What is subscribed to" },
  ],
  exampleValues: { provider: "", subscriber: "", paid_until: "2030-01-01T00:00:00Z" },
  build(_values, names) {
    const p = new Parties(names);
    const renew = `+RENEW ${p.signed("subscriber")} +modifies(${PAID_UNTIL})`;
    const lines = [
      "initial offered",
      `offered -> active [+SUBSCRIBE ${p.signed("subscriber")}]`,
      `offered -> withdrawn [+WITHDRAW ${p.signed("provider")}]`,
      `active -> active [${renew}]`,
      `active -> suspended [+SUSPEND ${p.signed("provider")} +after(${PAID_UNTIL})]`,
      `suspended -> active [${renew}]`,
      `active -> cancelled [+CANCEL ${p.signed("subscriber")}]`,
      `suspended -> cancelled [+CANCEL ${p.signed("subscriber")}]`,
      "cancelled -> cancelled []",
      "withdrawn -> withdrawn []",
    ];
    return {
      model: `model subscription {\n  ${lines.join("\n  ")}\n}`,
      rules: [
        {
          protects: "subscriber",
          says: "The service is suspended only after the paid period has ended",
          formula: `always(!suspended -> [-after(${PAID_UNTIL})] !suspended)`,
        },
        {
          protects: "subscriber",
          says: `Only ${p.who("subscriber")} can cancel`,
          formula: `always(!cancelled -> [-signed_by(${p.key("subscriber")})] !cancelled)`,
        },
        {
          protects: "provider",
          says: `The service becomes active only through ${p.whose("subscriber")} signed subscription or renewal`,
          formula: `always(!active -> [-signed_by(${p.key("subscriber")})] !active)`,
        },
        {
          protects: "provider",
          says: "A suspended subscription is reactivated only by a renewal that moves the paid-until date",
          formula: `always(suspended -> [-modifies(${PAID_UNTIL})] !active)`,
        },
      ],
    };
  },
};
