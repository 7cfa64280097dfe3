import { ContractError } from "../contract/ContractError.js";
import type { HttpProviderConfig } from "./AnthropicProvider.js";
import type { CompleteOptions, LlmPrompt, LlmProvider } from "./LlmProvider.js";
import { postJson } from "./postJson.js";

/** Any OpenAI-compatible chat endpoint (`POST ${base}/chat/completions`, `Authorization: Bearer`) over plain fetch. */
export class OpenAiProvider implements LlmProvider {
  readonly name = "openai";
  readonly model: string;

  constructor(private readonly config: HttpProviderConfig) {
    this.model = config.model;
  }

  /** Sends the system prompt as the first message and returns the first choice's content. */
  async complete(prompt: LlmPrompt, opts: CompleteOptions = {}): Promise<string> {
    const answer = (await postJson(`${this.config.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      provider: this.name,
      headers: { authorization: `Bearer ${this.config.apiKey}` },
      body: {
        model: this.model,
        max_tokens: opts.maxTokens ?? this.config.maxTokens,
        messages: [{ role: "system", content: prompt.system }, ...prompt.messages],
      },
      timeoutMs: this.config.timeoutMs,
      ...(this.config.retryDelayMs !== undefined ? { retryDelayMs: this.config.retryDelayMs } : {}),
    })) as { choices?: Array<{ message?: { content?: unknown } }> };
    const content = Array.isArray(answer?.choices) ? answer.choices[0]?.message?.content : undefined;
    if (typeof content !== "string" || content.trim() === "") {
      throw new ContractError("UPSTREAM_ERROR", "Language model (openai) answered without any message content", {
        reason: "upstream_bad_response",
        provider: this.name,
      });
    }
    return content;
  }
}
