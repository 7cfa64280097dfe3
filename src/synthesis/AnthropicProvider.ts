import { ContractError } from "../contract/ContractError.js";
import type { CompleteOptions, LlmPrompt, LlmProvider } from "./LlmProvider.js";
import { postJson } from "./postJson.js";

export interface HttpProviderConfig {
  apiKey: string;
  /** Anthropic: the host (`/v1/messages` is appended); OpenAI-compatible: the base including `/v1`. */
  baseUrl: string;
  model: string;
  timeoutMs: number;
  /** One synthesis request's time with the provider, all calls together (see LlmProvider.deadlineMs). */
  deadlineMs?: number;
  maxTokens: number;
  retryDelayMs?: number;
}

/** The Anthropic Messages API (`POST /v1/messages`, `x-api-key`, `anthropic-version: 2023-06-01`) over plain fetch. */
export class AnthropicProvider implements LlmProvider {
  readonly name = "anthropic";
  readonly model: string;
  readonly deadlineMs: number | undefined;

  constructor(private readonly config: HttpProviderConfig) {
    this.model = config.model;
    this.deadlineMs = config.deadlineMs;
  }

  /** Sends the prompt and returns the concatenated text blocks of the answer. */
  async complete(prompt: LlmPrompt, opts: CompleteOptions = {}): Promise<string> {
    const answer = (await postJson(`${this.config.baseUrl.replace(/\/+$/, "")}/v1/messages`, {
      provider: this.name,
      headers: { "x-api-key": this.config.apiKey, "anthropic-version": "2023-06-01" },
      body: {
        model: this.model,
        max_tokens: opts.maxTokens ?? this.config.maxTokens,
        system: prompt.system,
        messages: prompt.messages,
      },
      timeoutMs: this.config.timeoutMs,
      ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
      secret: this.config.apiKey,
      ...(this.config.retryDelayMs !== undefined ? { retryDelayMs: this.config.retryDelayMs } : {}),
    })) as { content?: unknown };
    const blocks = Array.isArray(answer?.content) ? (answer.content as Array<{ type?: unknown; text?: unknown }>) : [];
    const text = blocks
      .filter((b) => b?.type === "text" && typeof b.text === "string")
      .map((b) => b.text as string)
      .join("\n");
    if (text.trim() === "") {
      throw new ContractError("UPSTREAM_ERROR", "Language model (anthropic) answered without any text", {
        reason: "upstream_bad_response",
        provider: this.name,
      });
    }
    return text;
  }
}
