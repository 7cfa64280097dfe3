/** The body of `POST /contracts/synthesize`. */
export interface SynthesisRequest {
  description: string;
  pattern_hint?: string;
}

// The answer is a response body, shared with the SDK: defined once, in src/api.
export type { SynthesisResult } from "../api/responses.js";
