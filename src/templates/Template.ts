/**
 * Contract templates (docs/api.md, docs/templates.md): a parameterised model with rules that hold
 * on it. Definitions build their text from validated parameter values and from party names,
 * so the same definition serves `POST /contracts {template, params}` (names = roles) and the
 * pattern synthesizer (names taken from a description, e.g. buyer → alice).
 */

// The published shapes (catalogue entry, template, parameter) are response bodies, shared with
// the SDK: defined once, in src/api.
import type { TemplateParam } from "../api/responses.js";

export type { ParamType, Template, TemplateParam, TemplateSummary } from "../api/responses.js";

/** Validated parameter values: hex keys, key lists, integers, text; absent optional values are missing. */
export type ParamValues = Record<string, string | number | string[]>;

/** Role → the name used in state paths (`/users/<name>.id`) and messages. */
export type PartyNames = Record<string, string>;

/** A rule of a template with the party it protects and what it guarantees, in words. */
export interface TemplateRule {
  formula: string;
  /** Role of the protected party (`"all"` when every party is). */
  protects: string;
  says: string;
}

/** What a template definition builds. */
export interface TemplateBody {
  model: string;
  rules: TemplateRule[];
}

/** A template's full definition (internal: the catalogue publishes it as Template). */
export interface TemplateDefinition {
  id: string;
  name: string;
  description: string;
  params: TemplateParam[];
  /** Party roles; pubkey params with these names land at `/users/<role>.id`. */
  parties: string[];
  /** Values for the catalogue's model text (every optional party present). */
  exampleValues: ParamValues;
  build(values: ParamValues, names: PartyNames): TemplateBody;
  /** Checks across parameters (throws paramError), after each value is valid on its own. */
  validate?(values: ParamValues): void;
}

/** What a template instantiates to: ready for `genesisData` once an owner is known. */
export interface TemplateInstance {
  model: string;
  rules: string[];
  owner?: string;
  /** Initial posts, `{"<path>": value}`. */
  state: Record<string, unknown>;
}
