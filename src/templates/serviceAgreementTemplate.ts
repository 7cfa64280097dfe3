import { Parties } from "./Parties.js";
import type { TemplateDefinition } from "./Template.js";

const DEADLINE = "/terms/deadline.datetime";

/**
 * A service agreement: the provider accepts the client's proposal, delivers, and the client
 * approves or asks for changes. The client may terminate undelivered work only after the
 * deadline, and never once work is delivered.
 */
export const serviceAgreementTemplate: TemplateDefinition = {
  id: "service_agreement",
  name: "Service Agreement",
  description:
    "The provider accepts, delivers and the client approves (or requests changes). The client can terminate only " +
    "after the deadline and only while nothing is delivered.",
  parties: ["client", "provider"],
  params: [
    { name: "client", type: "pubkey", required: true, path: "/users/client.id", description: "Orders and approves" },
    { name: "provider", type: "pubkey", required: true, path: "/users/provider.id", description: "Delivers" },
    { name: "deadline", type: "datetime", required: true, path: DEADLINE, description: "Delivery deadline" },
    { name: "fee", type: "integer", required: false, min: 1, path: "/terms/fee.json", description: "Price" },
    { name: "scope", type: "text", required: false, path: "/terms/scope.text", description: "The service" },
  ],
  exampleValues: { client: "", provider: "", deadline: "2030-01-01T00:00:00Z" },
  build(_values, names) {
    const p = new Parties(names);
    const client = p.signed("client");
    // A commit may post alongside its action; one that moved the deadline would void the rule
    // that protects the provider from an early termination, so no step writes it.
    const fixed = `-modifies(${DEADLINE})`;
    const lines = [
      "initial proposed",
      `proposed -> active [+ACCEPT ${p.signed("provider")} ${fixed}]`,
      `proposed -> withdrawn [+WITHDRAW ${client} ${fixed}]`,
      `active -> delivered [+DELIVER ${p.signed("provider")} ${fixed}]`,
      `delivered -> active [+REQUEST_CHANGES ${client} ${fixed}]`,
      `delivered -> completed [+APPROVE ${client} ${fixed}]`,
      `active -> terminated [+TERMINATE ${client} +after(${DEADLINE}) ${fixed}]`,
      "completed -> completed []",
      "withdrawn -> withdrawn []",
      "terminated -> terminated []",
    ];
    return {
      model: `model service_agreement {\n  ${lines.join("\n  ")}\n}`,
      rules: [
        {
          protects: "client",
          says: `The work is complete only when ${p.who("client")} approves it`,
          formula: `always(!completed -> [-signed_by(${p.key("client")})] !completed)`,
        },
        {
          protects: "provider",
          says: "The agreement is terminated only after the deadline",
          formula: `always(!terminated -> [-after(${DEADLINE})] !terminated)`,
        },
        {
          protects: "provider",
          says: "Delivered work cannot be terminated",
          formula: "always(delivered -> [] !terminated)",
        },
        {
          protects: "provider",
          says: `Delivered work can always be approved by ${p.who("client")}`,
          formula: `always(delivered -> <+APPROVE ${client}> completed)`,
        },
      ],
    };
  },
};
