/** The body of `POST /contracts/synthesize` (spec 2.7 request). */
export interface SynthesisRequest {
  description: string;
  pattern_hint?: string;
}

/** Spec 2.7's synthesis result plus PROTOCOL.md §10's `source` and `warnings`. */
export interface SynthesisResult {
  model: string;
  rules: string[];
  parties: string[];
  /** Party name → what protects that party. */
  protections: Record<string, string>;
  /** The prompt for the language model (for `patterns`, the one that would have been sent). */
  prompt: string;
  source: "llm" | "patterns";
  warnings: string[];
  /** The template the pattern synthesizer used (absent for `llm`). */
  template?: string;
}
