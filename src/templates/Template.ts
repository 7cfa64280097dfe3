/**
 * Contract templates (docs/api.md, docs/templates.md): a parameterised model with rules that hold
 * on it. Definitions build their text from validated parameter values and from party names,
 * so the same definition serves `POST /contracts {template, params}` (names = roles) and the
 * pattern synthesizer (names taken from a description, e.g. buyer → alice).
 */

/** Parameter types a template can declare. `pubkeys` is a list of distinct keys. */
export type ParamType = "pubkey" | "pubkeys" | "integer" | "text" | "date" | "datetime";

/** One template parameter as published in the catalogue (docs/api.md Param, plus documentation fields). */
export interface TemplateParam {
  name: string;
  type: ParamType;
  required: boolean;
  description: string;
  /** Used when the parameter is omitted (optional parameters only). */
  default?: number | string;
  /** State path the value is written to; for `pubkeys`, the directory holding one `.id` per key. */
  path: string;
  /** Bounds: the value for `integer`, the number of keys for `pubkeys`. */
  min?: number;
  max?: number;
}

/** A template without model and rules (the `GET /templates` entry). */
export interface TemplateSummary {
  id: string;
  name: string;
  description: string;
  params: TemplateParam[];
}

/** The `GET /templates/:id` response: the summary with the model, the rules and what each party is protected by. */
export interface Template extends TemplateSummary {
  model: string;
  rules: string[];
  /** Party roles, in the order the template names them. */
  parties: string[];
  /** Role → the protections its rules give that party. */
  protections: Record<string, string>;
}

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
