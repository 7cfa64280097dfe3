import { ContractError, isContractError } from "../contract/ContractError.js";
import type { HttpProviderConfig } from "./AnthropicProvider.js";
import type { CompleteOptions, LlmPrompt, LlmProvider } from "./LlmProvider.js";
import { postJson } from "./postJson.js";

/**
 * Whether to ask for schema-constrained output: `auto` asks and, when the server refuses the
 * request (400, 404, 415, 422, 501), asks again without it and stops asking; `on` always asks
 * (a refusal is an error); `off` never asks.
 */
export type StructuredMode = "auto" | "on" | "off";

export interface OpenAiConfig extends HttpProviderConfig {
  structured?: StructuredMode;
}

/** Statuses with which servers refuse an unsupported `response_format`. */
const REFUSED = new Set([400, 404, 415, 422, 501]);

/** Any OpenAI-compatible chat endpoint (`POST ${base}/chat/completions`, `Authorization: Bearer`) over plain fetch. */
export class OpenAiProvider implements LlmProvider {
  readonly name = "openai";
  readonly model: string;
  readonly structured: StructuredMode;
  readonly deadlineMs: number | undefined;
  /** Set once the server has refused `response_format` (auto mode): later requests go without it. */
  private schemaRefused = false;

  constructor(private readonly config: OpenAiConfig) {
    this.model = config.model;
    this.structured = config.structured ?? "auto";
    this.deadlineMs = config.deadlineMs;
  }

  /** True while requests with a schema will ask the server for structured output. */
  get asksForSchema(): boolean {
    return this.structured === "on" || (this.structured === "auto" && !this.schemaRefused);
  }

  /** Sends the system prompt as the first message and returns the first choice's content. */
  async complete(prompt: LlmPrompt, opts: CompleteOptions = {}): Promise<string> {
    if (opts.schema === undefined || !this.asksForSchema) return this.send(prompt, opts, false);
    try {
      return await this.send(prompt, opts, true);
    } catch (err) {
      const status = isContractError(err) ? (err.details?.status as number | undefined) : undefined;
      if (this.structured !== "auto" || status === undefined || !REFUSED.has(status)) throw err;
      this.schemaRefused = true;
      return this.send(prompt, opts, false);
    }
  }

  private async send(prompt: LlmPrompt, opts: CompleteOptions, withSchema: boolean): Promise<string> {
    const body: Record<string, unknown> = {
      model: this.model,
      max_tokens: opts.maxTokens ?? this.config.maxTokens,
      messages: [{ role: "system", content: prompt.system }, ...prompt.messages],
    };
    if (withSchema && opts.schema !== undefined) {
      body.response_format = {
        type: "json_schema",
        json_schema: { name: opts.schema.name, strict: true, schema: opts.schema.schema },
      };
    }
    const answer = (await postJson(`${this.config.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      provider: this.name,
      headers: { authorization: `Bearer ${this.config.apiKey}` },
      body,
      timeoutMs: this.config.timeoutMs,
      ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
      secret: this.config.apiKey,
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
