import { protectionsOf } from "./protectionsOf.js";
import { ruleText } from "./ruleText.js";
import type { PartyNames, Template } from "./Template.js";
import { templateDefinition } from "./templateDefinitions.js";

/**
 * One template with its model and rules (`GET /templates/:id`), built with every optional
 * party present and parameter defaults; NOT_FOUND (404) for an unknown id.
 */
export function getTemplate(id: string): Template {
  const def = templateDefinition(id);
  const roles: PartyNames = Object.fromEntries(def.parties.map((r) => [r, r]));
  const body = def.build(def.exampleValues, roles);
  return {
    id: def.id,
    name: def.name,
    description: def.description,
    params: def.params.map((p) => ({ ...p })),
    model: body.model,
    rules: body.rules.map(ruleText),
    parties: [...def.parties],
    protections: protectionsOf(body.rules, def.parties),
  };
}
