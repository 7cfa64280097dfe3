/** The synthesis library's public surface (docs/synthesis.md). */
export { AnthropicProvider, type HttpProviderConfig } from "./AnthropicProvider.js";
export { buildPrompt, promptText, SYSTEM_PROMPT } from "./buildPrompt.js";
export type { CompleteOptions, LlmMessage, LlmPrompt, LlmProvider } from "./LlmProvider.js";
export { OpenAiProvider } from "./OpenAiProvider.js";
export { type ParsedAnswer, parseAnswer } from "./parseAnswer.js";
export { patternSynthesize } from "./patternSynthesize.js";
export { type Env, hasLlmKey, providerFromEnv } from "./providerFromEnv.js";
export type { SynthesisRequest, SynthesisResult } from "./SynthesisResult.js";
export { MAX_DESCRIPTION, type SynthesisOptions, synthesize } from "./synthesize.js";
