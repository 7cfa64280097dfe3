/**
 * JSON-RPC 2.0 mechanics, shared by `POST /` and WebSocket frames:
 * parse errors (-32700), invalid requests (-32600), unknown methods (-32601), params checked
 * by compiled TypeBox schemas (-32602), batches (capped), notifications, and hub errors
 * mapped through the one table with `data: {code, details}`.
 */

import { Compile } from "typebox/compile";
import { ContractError } from "../contract/ContractError.js";
import { parseJsonText } from "./decodeJsonBody.js";
import { decodeUtf8 } from "./decodeUtf8.js";
import { rpcCodeOf } from "./errorTable.js";
import { JsonText } from "./JsonText.js";
import type { RpcContext, RpcMethod } from "./rpcMethods.js";
import { toContractError } from "./toContractError.js";
import { errorField } from "./validatorCompiler.js";

export interface RpcError {
  code: number;
  message: string;
  data?: { code: string; details?: Record<string, unknown> };
}
export type RpcResponse =
  | { jsonrpc: "2.0"; id: string | number | null; result: unknown }
  | { jsonrpc: "2.0"; id: string | number | null; error: RpcError };

export interface RpcDispatcherOptions {
  maxBatch: number;
  maxDepth: number;
  /** Arrays and objects one request text may hold (docs/security.md). */
  maxContainers: number;
  /** Requests larger than this (bytes) may only call `largeBody` methods. */
  bodyBytes: number;
  /** Cheap checks of any method's params before its schema walks them (count limits). */
  precheck?: (params: Record<string, unknown>) => void;
  /** Called with unexpected errors (logged with their stack, never sent). */
  onInternal?: (err: unknown, method: string) => void;
}

/**
 * About how many characters the answers of one batch may hold: the calls after those whose
 * answers reached it are not run. One call answers at most about 8 MiB (a page of the log, a
 * pull), so without it a batch of 100 such calls built an answer of 800 MB (more than a
 * string may hold: the batch failed as INTERNAL after seconds of work).
 */
export const BATCH_ANSWER_CHARS = 16 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;

/** Dispatches JSON-RPC requests to a method table. */
export class RpcDispatcher<C extends RpcContext = RpcContext> {
  readonly #methods: Map<string, { method: RpcMethod<C>; check: ReturnType<typeof Compile> }>;
  readonly #options: RpcDispatcherOptions;

  constructor(methods: Record<string, RpcMethod<C>>, options: RpcDispatcherOptions) {
    this.#methods = new Map(
      Object.entries(methods).map(([name, m]) => [name, { method: m, check: Compile(m.params) }]),
    );
    this.#options = options;
  }

  /**
   * Answers a request body as received (`POST /`): bytes that are not UTF-8 are a parse
   * error (-32700, `body_not_utf8`), as REST refuses them; the request was signed over these
   * bytes, so nothing may run on a text with replaced characters.
   */
  async handleBytes(raw: Buffer, ctx: C): Promise<string | null> {
    let text: string;
    try {
      text = decodeUtf8(raw);
    } catch (err) {
      return JSON.stringify(parseError(err));
    }
    return this.handleText(text, ctx, raw.length);
  }

  /**
   * Answers a request text with the JSON text to send; null when there is nothing to send
   * (only notifications). A long text is parsed in slices charged to the caller's work
   * budget (decodeJsonBody.ts), whose refusal is the caller's -32029, not a parse error.
   */
  async handleText(text: string, ctx: C, size = Buffer.byteLength(text)): Promise<string | null> {
    let value: unknown;
    try {
      const limits = { jsonDepth: this.#options.maxDepth, jsonContainers: this.#options.maxContainers };
      value = await parseJsonText(text, limits, ctx.hub.ticker(ctx.caller));
    } catch (err) {
      // A text refused for its size or its sender's budget is not malformed: its own code.
      if (err instanceof ContractError && (err.code === "RATE_LIMITED" || err.code === "PAYLOAD_TOO_LARGE")) {
        tellWait(err, ctx);
        return JSON.stringify(failure(null, toRpcError(err)));
      }
      return JSON.stringify(parseError(err));
    }
    return this.handleValue(value, ctx, size);
  }

  /**
   * Answers a parsed request or batch with the JSON text to send; `size` is the request's
   * byte length. The calls of a batch run one at a time, in order (a batch of writes to one
   * contract must apply as written), and the event loop takes a turn after each: a call that
   * answers from memory or the store yields only to promise callbacks, so the 100 calls of a
   * batch ran as one piece of work (100 pages of the log held the event loop about a second).
   * Each answer is serialized as it comes, and once the answers reach BATCH_ANSWER_CHARS the
   * remaining calls are not run: each is answered -32013 `batch_answer_too_large`.
   */
  async handleValue(value: unknown, ctx: C, size = 0): Promise<string | null> {
    if (!Array.isArray(value)) {
      const answer = await this.#one(value, ctx, size, true);
      return answer === null ? null : answerText(answer);
    }
    if (value.length === 0) return JSON.stringify(failure(null, invalid("a batch must hold at least one request")));
    if (value.length > this.#options.maxBatch) {
      const err = new ContractError(
        "PAYLOAD_TOO_LARGE",
        `Batch of ${value.length} exceeds the limit of ${this.#options.maxBatch}`,
        {
          reason: "batch_too_large",
          limit: this.#options.maxBatch,
        },
      );
      return JSON.stringify(failure(null, toRpcError(err)));
    }
    const out: string[] = [];
    let chars = 0;
    for (const [i, item] of value.entries()) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const r = await this.#one(item, ctx, size, chars < BATCH_ANSWER_CHARS);
      if (r === null) continue;
      const text = answerText(r);
      chars += text.length;
      out.push(text);
    }
    return out.length > 0 ? `[${out.join(",")}]` : null;
  }

  /** Answers one request; `run` false answers it `batch_answer_too_large` without running it. */
  async #one(req: unknown, ctx: C, size: number, run: boolean): Promise<RpcResponse | null> {
    if (req === null || typeof req !== "object" || Array.isArray(req)) {
      return failure(null, invalid("a request must be an object"));
    }
    const r = req as Record<string, unknown>;
    const hasId = Object.hasOwn(r, "id");
    const id = r.id;
    if (hasId && id !== null && typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) {
      return failure(null, invalid("id must be a string, a number or null"));
    }
    const rid = (hasId ? id : null) as string | number | null;
    if (r.jsonrpc !== "2.0") return failure(rid, invalid('jsonrpc must be "2.0"'));
    if (typeof r.method !== "string") return failure(rid, invalid("method must be a string"));
    const answer = run ? await this.#call(r.method, r.params, ctx, size) : { error: notRun() };
    if (!hasId) return null;
    return "error" in answer ? failure(rid, answer.error) : { jsonrpc: "2.0", id: rid, result: answer.result };
  }

  async #call(name: string, params: unknown, ctx: C, size: number): Promise<{ result: unknown } | { error: RpcError }> {
    const entry = this.#methods.get(name);
    if (!entry) {
      return {
        error: {
          code: METHOD_NOT_FOUND,
          message: `Method not found: ${name.slice(0, 100)}`,
          data: { code: "NOT_FOUND", details: { reason: "unknown_method", method: name.slice(0, 100) } },
        },
      };
    }
    try {
      const p = params === undefined ? {} : params;
      if (p === null || typeof p !== "object" || Array.isArray(p)) {
        throw new ContractError("INVALID_REQUEST", "Invalid params: params must be an object (by name)", {
          reason: "params_not_object",
          field: "params",
        });
      }
      this.#options.precheck?.(p as Record<string, unknown>);
      if (!entry.check.Check(p)) {
        const first = [...entry.check.Errors(p)][0];
        const field = errorField("params", first);
        throw new ContractError("INVALID_REQUEST", `Invalid params: ${field} ${first?.message ?? "is invalid"}`, {
          reason: "schema",
          field,
          keyword: first?.keyword,
        });
      }
      if (size > this.#options.bodyBytes && !entry.method.largeBody) {
        throw new ContractError(
          "PAYLOAD_TOO_LARGE",
          `Request body is larger than the limit of ${this.#options.bodyBytes} bytes`,
          {
            reason: "body_too_large",
            limit: this.#options.bodyBytes,
          },
        );
      }
      if (entry.method.auth && ctx.caller.identity === null) {
        throw new ContractError("UNAUTHORIZED", `Cannot call ${name}: the request must be authenticated`, {
          reason: "unauthenticated",
        });
      }
      const result = await entry.method.run(ctx, p as Record<string, unknown>);
      return { result: result === undefined ? null : result };
    } catch (err) {
      const mapped = toContractError(err);
      if (mapped.code === "INTERNAL") this.#options.onInternal?.(err, name);
      tellWait(mapped, ctx);
      return { error: toRpcError(mapped) };
    }
  }
}

/** Tells the transport the wait of a refusal that carries one (RpcContext.retryAfter). */
function tellWait(err: ContractError, ctx: RpcContext): void {
  const wait = err.details?.retry_after;
  if ((err.code === "RATE_LIMITED" || err.code === "UNAVAILABLE") && typeof wait === "number") ctx.retryAfter?.(wait);
}

/**
 * The JSON text of an answer: JSON.stringify, except that a result already serialized in
 * slices (JsonText, a page of the log) is put in as it is, in the place and with the key
 * order JSON.stringify gives it.
 */
function answerText(r: RpcResponse): string {
  if ("result" in r && r.result instanceof JsonText) {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":${r.result.text}}`;
  }
  return JSON.stringify(r);
}

/** The JSON-RPC error object of a ContractError (`data: {code, details}`). */
export function toRpcError(err: ContractError): RpcError {
  return { code: rpcCodeOf(err.code, err.details), message: err.message, data: dataOf(err) };
}

/** A response carrying `error`. */
export function failure(id: string | number | null, error: RpcError): RpcResponse {
  return { jsonrpc: "2.0", id, error };
}

function dataOf(err: ContractError): RpcError["data"] {
  return err.details === undefined ? { code: err.code } : { code: err.code, details: err.details };
}

/** The answer of a call a batch did not run: the answers before it reached BATCH_ANSWER_CHARS. */
function notRun(): RpcError {
  const err = new ContractError(
    "PAYLOAD_TOO_LARGE",
    `Not run: the answers of the calls before it in the batch reached the limit of ${BATCH_ANSWER_CHARS} characters`,
    { reason: "batch_answer_too_large", limit: BATCH_ANSWER_CHARS },
  );
  return toRpcError(err);
}

/** The -32700 answer for a body that cannot be read as JSON, with the refusal's code and details as data. */
function parseError(err: unknown): RpcResponse {
  const e = toContractError(err);
  return failure(null, { code: PARSE_ERROR, message: `Parse error: ${e.message}`, data: dataOf(e) });
}

/** The -32600 error: what was sent is not a JSON-RPC request (`reason` says why, for programs). */
export function invalid(why: string, reason = "invalid_request"): RpcError {
  return {
    code: INVALID_REQUEST,
    message: `Invalid Request: ${why}`,
    data: { code: "INVALID_REQUEST", details: { reason } },
  };
}
