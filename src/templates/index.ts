/** The template library's public surface (docs/templates.md). */
export { getTemplate } from "./getTemplate.js";
export { instantiateTemplate } from "./instantiateTemplate.js";
export { listTemplates } from "./listTemplates.js";
export type {
  ParamType,
  ParamValues,
  PartyNames,
  Template,
  TemplateDefinition,
  TemplateInstance,
  TemplateParam,
  TemplateRule,
  TemplateSummary,
} from "./Template.js";
export { TEMPLATE_CATALOGUE, type TemplateCatalogue } from "./templateCatalogue.js";
export { TEMPLATE_DEFINITIONS, templateDefinition } from "./templateDefinitions.js";
