import type { SynthesisDeadline } from "./SynthesisDeadline.js";

/** One message of a conversation with a language model. */
export interface LlmMessage {
  role: "user" | "assistant";
  content: string;
}

/** What is sent: a system prompt and the conversation so far (a repair round appends to it). */
export interface LlmPrompt {
  system: string;
  messages: LlmMessage[];
}

export interface CompleteOptions {
  /** Upper bound on the answer's length in tokens. */
  maxTokens?: number;
  /**
   * Ask for an answer constrained to this JSON schema where the server supports it
   * (OpenAI-compatible `response_format`); providers without it ignore it, and the answer
   * goes through the tolerant parser either way.
   */
  schema?: { name: string; schema: Record<string, unknown> };
  /** The synthesis request's deadline: the call, its retries and any re-send end by it. */
  deadline?: SynthesisDeadline;
  /**
   * Aborted when the request's caller went away: the call under way is aborted and rejects
   * with INVALID_REQUEST `client_aborted` (see cancelledError), and no retry is made.
   */
  signal?: AbortSignal;
}

/**
 * A language model behind one interface, so synthesis never depends on a vendor SDK and tests
 * inject a fake. `complete` resolves to the answer's text or rejects with ContractError
 * UPSTREAM_ERROR (502); it never hangs (every request has a timeout).
 */
export interface LlmProvider {
  /** "anthropic", "openai" or a test name; used in messages. */
  readonly name: string;
  readonly model: string;
  /**
   * How long one synthesis request may spend with this provider, every call, retry and repair
   * round together (HUB_SYNTHESIS_TIMEOUT_MS); without it only each call's own timeout bounds it.
   */
  readonly deadlineMs?: number;
  complete(prompt: LlmPrompt, opts?: CompleteOptions): Promise<string>;
}
