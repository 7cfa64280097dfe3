import { setTimeout as sleep } from "node:timers/promises";
import { ContractError } from "../contract/ContractError.js";
import { cancelledError } from "./cancelledError.js";
import type { SynthesisDeadline } from "./SynthesisDeadline.js";

export interface PostJsonOptions {
  /** Provider name for messages and `details.provider`. */
  provider: string;
  headers: Record<string, string>;
  body: unknown;
  /** Per attempt, covering the response body too. */
  timeoutMs: number;
  /**
   * The request's overall deadline: an attempt runs at most until it, and none (and no retry)
   * starts once too little of it is left.
   */
  deadline?: SynthesisDeadline;
  /**
   * Aborted when the caller went away: the attempt under way is aborted (its connection
   * closed), no retry is made, and the call rejects with INVALID_REQUEST `client_aborted`.
   */
  signal?: AbortSignal;
  /** Extra attempts after a transient failure (429, 5xx, network error). */
  retries?: number;
  /** Pause before a retry; a shorter `retry-after` wins. */
  retryDelayMs?: number;
  fetchImpl?: typeof fetch;
  /** Largest response body read, in bytes (default MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** The API key: never repeated in an error, even when the provider's own text echoes it. */
  secret?: string;
}

const MAX_ERROR_TEXT = 300;
/**
 * An answer of the hub's largest token budget is tens of kilobytes; a provider (or whatever
 * answers at its address) that sends more is not giving a contract, and must not fill memory.
 */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The body as text, or null once it passes `max` bytes (then the rest is not read). */
async function cappedText(res: Response, max: number): Promise<string | null> {
  if (Number(res.headers.get("content-length") ?? 0) > max) {
    await res.body?.cancel();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (let r = await reader?.read(); r !== undefined && !r.done; r = await reader!.read()) {
    size += r.value.byteLength;
    if (size > max) {
      await reader!.cancel();
      return null;
    }
    chunks.push(r.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function upstream(
  provider: string,
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
): ContractError {
  return new ContractError("UPSTREAM_ERROR", `Language model (${provider}) ${message}`, {
    reason,
    provider,
    ...extra,
  });
}

/**
 * `text` with every occurrence of `secret` replaced (a proxy or a provider may echo the key it
 * got), and the `user:password@` of any URL in it: fetch refuses a URL with credentials and
 * quotes it whole in its error, which would put a password from the base URL in the message.
 */
function redact(text: string, secret: string | undefined): string {
  const bare = redactUserinfo(text);
  return secret === undefined || secret === "" ? bare : bare.split(secret).join("[key]");
}

/**
 * The provider's own error text, shortened; never the request (which holds the key in a
 * header, not the body), and never the key, which some servers quote back in a 401.
 */
function errorText(text: string, secret: string | undefined): string {
  let msg: unknown;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string };
    msg = typeof body.error === "string" ? body.error : body.error?.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  // Redacted before shortening, so a key cut in two at the end cannot slip through.
  return redact(typeof msg === "string" ? msg : text, secret).slice(0, MAX_ERROR_TEXT);
}

/** `text` with the userinfo of every URL in it (`scheme://user:password@host`) replaced by `[userinfo]`. */
export function redactUserinfo(text: string): string {
  // Up to the authority's last "@" (a password may hold one): nothing past the first "/", "?" or "#".
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi, "$1[userinfo]@");
}

/** upstream_timeout at the request's deadline: `deadline_ms` says it was the whole request's time that ran out. */
function pastDeadline(opts: PostJsonOptions, asked: boolean): ContractError {
  const ms = opts.deadline!.ms;
  const message = asked
    ? `did not answer within the synthesis deadline of ${ms} ms`
    : `was not asked: the synthesis deadline of ${ms} ms has passed`;
  return upstream(opts.provider, "upstream_timeout", message, { timeout_ms: opts.timeoutMs, deadline_ms: ms });
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

/**
 * POSTs JSON and returns the parsed JSON answer. Each attempt runs under
 * `AbortSignal.timeout`, body included, so a provider that never answers costs at most
 * `timeoutMs`, or what is left before `deadline` when that is less. 429, 5xx and network
 * errors are retried `retries` times (default once) when the pause ends before the deadline; a
 * timeout is not retried, so the worst case stays bounded. Every failure is UPSTREAM_ERROR
 * with `details.reason`: upstream_timeout (with `timeout_ms`, and `deadline_ms` when the
 * deadline ended it), upstream_unreachable, upstream_status (with `status`),
 * upstream_bad_json, upstream_too_large (a body over `maxResponseBytes`, not retried); an
 * aborted `signal` is INVALID_REQUEST `client_aborted`, at once and whatever else failed.
 */
export async function postJson(url: string, opts: PostJsonOptions): Promise<unknown> {
  const doFetch = opts.fetchImpl ?? fetch;
  const attempts = 1 + (opts.retries ?? 1);
  let last: ContractError | undefined;
  const cancelled = () => opts.signal?.aborted === true;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      const pause = opts.retryDelayMs ?? 250;
      // A retry that could only start at the deadline is not made: the failure it would retry is the answer.
      if (opts.deadline !== undefined && opts.deadline.left() <= pause) throw last!;
      // The pause ends early when the caller goes away (then the check below answers).
      await sleep(pause, undefined, opts.signal === undefined ? {} : { signal: opts.signal }).catch(() => {});
    }
    if (cancelled()) throw cancelledError();
    const left = opts.deadline?.left() ?? Number.POSITIVE_INFINITY;
    if (left <= 0) throw pastDeadline(opts, false);
    // The deadline, not the per-call timeout, ends this attempt when it comes first.
    const cut = left < opts.timeoutMs;
    let status: number;
    let text: string;
    let retryAfter: string | null = null;
    try {
      const timeout = AbortSignal.timeout(cut ? Math.ceil(left) : opts.timeoutMs);
      const signal = opts.signal === undefined ? timeout : AbortSignal.any([timeout, opts.signal]);
      const res = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...opts.headers },
        body: JSON.stringify(opts.body),
        signal,
        // A provider's API does not redirect; one that does would take the key along (fetch
        // drops Authorization across origins, not Anthropic's x-api-key) and the prompt with
        // it. The 3xx answer is an upstream_status error instead.
        redirect: "manual",
      });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      const max = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
      const read = await cappedText(res, max);
      if (read === null) {
        throw upstream(opts.provider, "upstream_too_large", `answered with a body over ${max} bytes`, {
          max_bytes: max,
        });
      }
      text = read;
    } catch (err) {
      if (err instanceof ContractError) throw err;
      // The caller's abort, not a timeout, when both could have ended it: nobody waits for this answer.
      if (cancelled()) throw cancelledError();
      if (isTimeout(err)) {
        if (cut) throw pastDeadline(opts, true);
        throw upstream(opts.provider, "upstream_timeout", `did not answer within ${opts.timeoutMs} ms`, {
          timeout_ms: opts.timeoutMs,
        });
      }
      const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      last = upstream(opts.provider, "upstream_unreachable", `could not be reached: ${redact(cause, opts.secret)}`);
      continue;
    }
    if (status >= 200 && status < 300) {
      try {
        return JSON.parse(text);
      } catch {
        throw upstream(opts.provider, "upstream_bad_json", "answered with a body that is not JSON");
      }
    }
    last = upstream(opts.provider, "upstream_status", `answered HTTP ${status}: ${errorText(text, opts.secret)}`, {
      status,
    });
    if (status !== 429 && status < 500) throw last;
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    if (Number.isFinite(seconds) && seconds * 1000 > (opts.retryDelayMs ?? 250) * 8) throw last;
  }
  throw last!;
}
