/**
 * The JSON schema of an answer, for servers that constrain their output to a schema
 * (OpenAI-compatible `response_format: {type: "json_schema"}`: OpenAI, llama.cpp's server,
 * Ollama, vLLM). Strict-mode compatible: every object closed, every property required, so
 * protections are a list of `{party, protection}` rather than an open map.
 */
export const ANSWER_SCHEMA_NAME = "contract_synthesis";

export const ANSWER_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["model", "rules", "parties", "protections"],
  properties: {
    model: { type: "string", description: "One model in the hub's model syntax: model <name> { … }" },
    rules: {
      type: "array",
      description: "Rules in the RFC envelope (export default rule { starting_at $PARENT formula { … } })",
      items: { type: "string" },
    },
    parties: { type: "array", description: "Lower-case party names", items: { type: "string" } },
    protections: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["party", "protection"],
        properties: { party: { type: "string" }, protection: { type: "string" } },
      },
    },
  },
} as const;

/** What the prompt adds when the answer is constrained to the schema. */
export const JSON_ANSWER_NOTE =
  "If your reply is constrained to JSON, put the same content in one object: " +
  '{"model": "<model text>", "rules": ["<rule text>", …], "parties": ["<party>", …], ' +
  '"protections": [{"party": "<party>", "protection": "<text>"}, …]}.';
