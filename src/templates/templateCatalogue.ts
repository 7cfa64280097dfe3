import { getTemplate } from "./getTemplate.js";
import { instantiateTemplate } from "./instantiateTemplate.js";
import { listTemplates } from "./listTemplates.js";
import type { Template, TemplateSummary } from "./Template.js";

/** The template catalogue as the hub serves it: the list, one template, and an instantiation for `POST /contracts`. */
export interface TemplateCatalogue {
  list(): TemplateSummary[];
  get(id: string): Template;
  instantiate(
    id: string,
    params: Record<string, unknown>,
  ): { model: string | null; rules: string[]; state?: Record<string, unknown> };
}

/** The built-in templates. */
export const TEMPLATE_CATALOGUE: TemplateCatalogue = {
  list: () => listTemplates(),
  get: (id) => getTemplate(id),
  instantiate: (id, params) => instantiateTemplate(id, params),
};
