/** The body of `POST /contracts/synthesize`. */
export interface SynthesisRequest {
  description: string;
  pattern_hint?: string;
}

/** The synthesis result: model, rules, parties, protections and prompt, plus how it was made (`source`, `patterns`, `confidence`) and what it guessed (`warnings`). */
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
  /**
   * The patterns the answer was built from: for `patterns`, the family first, then the parts
   * the description asked for (`["escrow", "arbiter", "deadline"]`); for `llm`, the family a
   * `pattern_hint` named, if any.
   */
  patterns: string[];
  /** 0..1: how sure the synthesizer is that this is the contract described (see docs/synthesis.md). */
  confidence: number;
}
