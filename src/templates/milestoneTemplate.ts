import { Parties } from "./Parties.js";
import type { TemplateDefinition, TemplateRule } from "./Template.js";

const MAX_MILESTONES = 10;

/**
 * Milestone payments: the client funds, then for each milestone the contractor delivers and
 * the client pays (or rejects, sending the contractor back to work). The number of milestones
 * is a parameter; each has its own action labels so `valid_actions` names the step.
 */
export const milestoneTemplate: TemplateDefinition = {
  id: "milestone",
  name: "Milestone Payment",
  description:
    "Multi-stage payment on deliverables: the client funds, the contractor delivers each milestone, the client pays " +
    "or rejects it. Cancelling needs both signatures.",
  parties: ["client", "contractor"],
  params: [
    { name: "client", type: "pubkey", required: true, path: "/users/client.id", description: "Funds and pays" },
    { name: "contractor", type: "pubkey", required: true, path: "/users/contractor.id", description: "Delivers" },
    {
      name: "milestones",
      type: "integer",
      required: false,
      default: 2,
      min: 1,
      max: MAX_MILESTONES,
      path: "/terms/milestones.json",
      description: "Number of milestones",
    },
    { name: "total", type: "integer", required: false, min: 1, path: "/terms/total.json", description: "Total price" },
    { name: "scope", type: "text", required: false, path: "/terms/scope.text", description: "The work" },
  ],
  exampleValues: { client: "", contractor: "", milestones: 2 },
  build(values, names) {
    const p = new Parties(names);
    const count = Number(values.milestones ?? 2);
    const lines = ["initial init", `init -> funded [+FUND ${p.signed("client")}]`];
    const rules: TemplateRule[] = [];
    let open = "funded";
    const paid: string[] = [];
    const delivered: string[] = [];
    for (let i = 1; i <= count; i++) {
      const done = `m${i}_delivered`;
      lines.push(`${open} -> ${done} [+DELIVER_M${i} ${p.signed("contractor")}]`);
      lines.push(`${done} -> m${i}_paid [+PAY_M${i} ${p.signed("client")}]`);
      lines.push(`${done} -> ${open} [+REJECT_M${i} ${p.signed("client")}]`);
      lines.push(`${open} -> cancelled [+CANCEL ${p.signed("client")} ${p.signed("contractor")}]`);
      paid.push(`m${i}_paid`);
      delivered.push(done);
      open = `m${i}_paid`;
    }
    lines.push(`${open} -> ${open} []`, "cancelled -> cancelled []");
    const payment = paid.map((s) => `always(!${s} -> [-signed_by(${p.key("client")})] !${s})`).join(" & ");
    const payable = paid.map((s, i) => `always(${delivered[i]} -> <${p.signed("client")}> ${s})`).join(" & ");
    rules.push(
      {
        protects: "client",
        says: `Every milestone is paid only with ${p.whose("client")} signature`,
        formula: payment,
      },
      {
        protects: "contractor",
        says: `The work is cancelled only with ${p.whose("contractor")} signature`,
        formula: `always(!cancelled -> [-signed_by(${p.key("contractor")})] !cancelled)`,
      },
      {
        protects: "contractor",
        says: `A delivered milestone can always be paid by ${p.who("client")}, and never cancelled`,
        formula: `${payable} & always((${delivered.join(" | ")}) -> [] !cancelled)`,
      },
    );
    return { model: `model milestone {\n  ${lines.join("\n  ")}\n}`, rules };
  },
};
