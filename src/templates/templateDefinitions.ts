import { ContractError } from "../contract/ContractError.js";
import { atomicSwapTemplate } from "./atomicSwapTemplate.js";
import { escrowTemplate } from "./escrowTemplate.js";
import { milestoneTemplate } from "./milestoneTemplate.js";
import { multisigTemplate } from "./multisigTemplate.js";
import { serviceAgreementTemplate } from "./serviceAgreementTemplate.js";
import { subscriptionTemplate } from "./subscriptionTemplate.js";
import type { TemplateDefinition } from "./Template.js";

/** Every built-in template, in catalogue order (the spec's two known ids first). */
export const TEMPLATE_DEFINITIONS: readonly TemplateDefinition[] = [
  escrowTemplate,
  milestoneTemplate,
  atomicSwapTemplate,
  multisigTemplate,
  subscriptionTemplate,
  serviceAgreementTemplate,
];

/** The definition of template `id`; NOT_FOUND (404) for an unknown id. */
export function templateDefinition(id: unknown): TemplateDefinition {
  const def = TEMPLATE_DEFINITIONS.find((t) => t.id === id);
  if (def === undefined) {
    const shown = typeof id === "string" ? JSON.stringify(id.slice(0, 64)) : String(id);
    throw new ContractError("NOT_FOUND", `Template ${shown} not found`, { reason: "template_not_found" });
  }
  return def;
}
