import { ContractError } from "../contract/ContractError.js";
import { AnthropicProvider } from "./AnthropicProvider.js";
import type { LlmProvider } from "./LlmProvider.js";
import { OpenAiProvider, type StructuredMode } from "./OpenAiProvider.js";
import { redactUserinfo } from "./postJson.js";

export type Env = Record<string, string | undefined>;

export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-20250514";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOKENS = 4096;
/** HUB_SYNTHESIS_TIMEOUT_MS by default, in per-call timeouts: the first answer and one repair round. */
export const DEADLINE_CALLS = 2;

/** The longest delay a Node timer holds; a longer one fires after 1 ms (so every request would time out). */
const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? "a positive integer" : `a positive integer up to ${max}`;
    throw new ContractError("INTERNAL", `${name} must be ${range}, got ${JSON.stringify(raw)}`, {
      reason: "bad_config",
      variable: name,
    });
  }
  return n;
}

/** `HUB_LLM_STRUCTURED`: auto (default), on or off. */
function structuredMode(env: Env): StructuredMode {
  const raw = env.HUB_LLM_STRUCTURED;
  if (raw === undefined || raw === "") return "auto";
  if (raw === "auto" || raw === "on" || raw === "off") return raw;
  throw new ContractError("INTERNAL", `HUB_LLM_STRUCTURED must be auto, on or off, got ${JSON.stringify(raw)}`, {
    reason: "bad_config",
    variable: "HUB_LLM_STRUCTURED",
  });
}

/**
 * The provider's base URL from `name`, or `fallback`. One holding a user name or password
 * (`https://user:password@host`) is refused (bad_config): fetch refuses such a URL, so the hub
 * would start and then fail every synthesis as unreachable. The value is never repeated in the
 * message (it holds a secret); a value that is not an http(s) URL is quoted without any userinfo.
 */
function baseUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const refuse = (why: string) =>
    new ContractError("INTERNAL", `${name} ${why}`, { reason: "bad_config", variable: name });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(`must be an http or https URL, got ${JSON.stringify(redactUserinfo(raw))}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw refuse(
      "must not hold a user name or password (user:password@): the provider's key goes in its API key variable",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refuse(`must be an http or https URL, got ${JSON.stringify(url.protocol)}`);
  }
  return raw;
}

/** True when a language-model key is configured (the hub then requires authentication for synthesis). */
export function hasLlmKey(env: Env): boolean {
  return Boolean(env.ANTHROPIC_API_KEY || env.OPENAI_API_KEY);
}

/**
 * The provider configured by the environment, or null without a key. `ANTHROPIC_API_KEY`
 * (base `ANTHROPIC_BASE_URL`, default https://api.anthropic.com) wins over `OPENAI_API_KEY`
 * (base `HUB_LLM_BASE_URL`, default https://api.openai.com/v1) unless
 * `HUB_LLM_PROVIDER=openai`. `HUB_LLM_MODEL`, `HUB_LLM_TIMEOUT_MS` (per call, default 60 s),
 * `HUB_SYNTHESIS_TIMEOUT_MS` (one synthesis request, every call, retry and repair round
 * together; default twice the per-call timeout) and `HUB_LLM_MAX_TOKENS` (default 4096) apply
 * to both; `HUB_LLM_STRUCTURED` (auto, on, off) to the OpenAI-compatible one. A base URL
 * must be http(s) without a user name or password.
 */
export function providerFromEnv(env: Env): LlmProvider | null {
  const timeoutMs = positive(env, "HUB_LLM_TIMEOUT_MS", DEFAULT_TIMEOUT_MS, MAX_TIMER_MS);
  // Twice the per-call timeout: time for an answer and the repair round's answer.
  const deadlineMs = positive(env, "HUB_SYNTHESIS_TIMEOUT_MS", DEADLINE_CALLS * timeoutMs, MAX_TIMER_MS);
  const maxTokens = positive(env, "HUB_LLM_MAX_TOKENS", DEFAULT_MAX_TOKENS);
  const model = env.HUB_LLM_MODEL || undefined;
  const preferOpenAi = env.HUB_LLM_PROVIDER === "openai";
  if (env.ANTHROPIC_API_KEY && !(preferOpenAi && env.OPENAI_API_KEY)) {
    return new AnthropicProvider({
      apiKey: env.ANTHROPIC_API_KEY,
      baseUrl: baseUrl(env, "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
      model: model ?? DEFAULT_ANTHROPIC_MODEL,
      timeoutMs,
      deadlineMs,
      maxTokens,
    });
  }
  if (env.OPENAI_API_KEY) {
    return new OpenAiProvider({
      structured: structuredMode(env),
      apiKey: env.OPENAI_API_KEY,
      baseUrl: baseUrl(env, "HUB_LLM_BASE_URL", "https://api.openai.com/v1"),
      model: model ?? DEFAULT_OPENAI_MODEL,
      timeoutMs,
      deadlineMs,
      maxTokens,
    });
  }
  return null;
}
