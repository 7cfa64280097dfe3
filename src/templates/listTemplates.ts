import type { TemplateSummary } from "./Template.js";
import { TEMPLATE_DEFINITIONS } from "./templateDefinitions.js";

/** The template catalogue (`GET /templates`): every template without model and rules. */
export function listTemplates(): TemplateSummary[] {
  return TEMPLATE_DEFINITIONS.map((t) => ({
    id: t.id,
    name: t.name,
    description: t.description,
    params: t.params.map((p) => ({ ...p })),
  }));
}
