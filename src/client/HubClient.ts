/**
 * The typed SDK of the hub (docs/api.md): one method per REST route, JSON-RPC calls and
 * WebSocket subscriptions. Request bodies and queries have the types of the routes' own
 * schemas (src/api/schemas.ts). Requests are signed with the access key when one is given;
 * idempotent GETs are retried on network failures and 429/502/503/504. Errors are thrown as
 * ContractError with the hub's code and details, exactly as the hub raised them. A request
 * can be cancelled (`signal`) or bounded (`timeoutMs`): either closes its connection, so a
 * hub that never answers holds neither the caller nor the process.
 */

import type {
  AssetsResult,
  CheckpointKeyResult,
  ConsistencyProofResult,
  InclusionProofResult,
  IncomingSendsResult,
  ListContractsResult,
  ProposalView,
  PullResult,
  StateView,
  SubmitCommitResult,
  SynthesisResult,
  Template,
  TemplateSummary,
} from "../api/responses.js";
import type {
  CreateContractBody,
  GrantBody,
  ListContractsQuery,
  PageQuery,
  PullQuery,
  SubmitCommitBody,
} from "../api/schemas.js";
import { registrationBody, revocationBody, signRequest } from "../auth/signRequest.js";
import type { LogEntry, PulledCommit, WireCommit } from "../contract/Commit.js";
import { ContractError } from "../contract/ContractError.js";
import { isErrorCode } from "../contract/errorCodes.js";
import { CheckpointError } from "../tlog/checkpoint.js";
import { MAX_ANSWER, readBoundedBytes, type TooLarge } from "../tlog/readBoundedText.js";
import { HubSocket } from "./HubSocket.js";

export interface HubClientOptions {
  /** REST base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** JSON-RPC base URL (default: none; `rpc()` then needs it). */
  rpcUrl?: string;
  /** Access key seed (32 bytes) that signs requests. */
  accessKey?: Uint8Array;
  /** Retries of idempotent GETs (default 2). */
  retries?: number;
  /** First retry delay in ms, doubled each time (default 100). */
  retryDelayMs?: number;
  /**
   * Cancels every request of this client when it aborts: the one under way has its connection
   * closed and throws UNAVAILABLE `aborted`, and any later one throws the same at once.
   */
  signal?: AbortSignal;
  /**
   * The most one call waits, in ms, its retries and the reading of the answer included; past
   * it the request is cancelled as by `signal` and throws UNAVAILABLE `timeout` (default: no
   * bound).
   */
  timeoutMs?: number;
}

type Query = Record<string, string | number | undefined>;

/** A proposal as the hub answers it, with the appended commit once it completed. */
export interface ProposalAnswer {
  proposal: ProposalView;
  commit?: SubmitCommitResult;
}
const RETRY_STATUS = new Set([429, 502, 503, 504]);

/**
 * The checkpoint, the log key and the proofs are read up to MAX_ANSWER (64 KiB; each is a few
 * KiB at most): they come from the hub being checked, which must not be able to fill the
 * checking client's memory by answering megabytes.
 */
const answerTooLarge: TooLarge = (limit) =>
  new ContractError("UPSTREAM_ERROR", `The hub's answer exceeds ${limit} bytes, more than this answer can hold`, {
    reason: "answer_too_large",
    limit,
  });

/** A client of one hub. */
export class HubClient {
  readonly url: string;
  readonly rpcUrl: string | undefined;
  readonly #key: Uint8Array | undefined;
  readonly #retries: number;
  readonly #delay: number;
  readonly #signal: AbortSignal | undefined;
  readonly #timeoutMs: number | undefined;

  constructor(options: HubClientOptions) {
    this.url = options.url.replace(/\/$/, "");
    this.rpcUrl = options.rpcUrl?.replace(/\/$/, "");
    this.#key = options.accessKey;
    this.#retries = options.retries ?? 2;
    this.#delay = options.retryDelayMs ?? 100;
    this.#signal = options.signal;
    this.#timeoutMs = options.timeoutMs;
  }

  /** A client of the same hub signing with another access key. */
  withKey(accessKey: Uint8Array): HubClient {
    return new HubClient({
      url: this.url,
      ...(this.rpcUrl ? { rpcUrl: this.rpcUrl } : {}),
      accessKey,
      retries: this.#retries,
      retryDelayMs: this.#delay,
      ...(this.#signal ? { signal: this.#signal } : {}),
      ...(this.#timeoutMs !== undefined ? { timeoutMs: this.#timeoutMs } : {}),
    });
  }

  /** `GET /health`. */
  health(): Promise<{ status: string; version: string }> {
    return this.get("/health");
  }
  /** `GET /contracts` (`include: "state"` adds each contract's current state). */
  listContracts(q: ListContractsQuery = {}): Promise<ListContractsResult> {
    return this.get("/contracts", q);
  }
  /** `POST /contracts`. */
  createContract(body: CreateContractBody): Promise<{ contract_id: string; created_at: number }> {
    return this.post("/contracts", body);
  }
  /** `GET /contracts/:id`. */
  getContract(
    id: string,
  ): Promise<{ contract_id: string; model: string | null; rules: string[]; state: StateView; created_at: number }> {
    return this.get(`/contracts/${enc(id)}`);
  }
  /** `GET /contracts/:id/state`. */
  getState(id: string): Promise<StateView> {
    return this.get(`/contracts/${enc(id)}/state`);
  }
  /** `GET /contracts/:id/log`. */
  getLog(id: string, q: PageQuery = {}): Promise<{ commits: LogEntry[]; total: number }> {
    return this.get(`/contracts/${enc(id)}/log`, q);
  }
  /** `GET /contracts/:id/commits`. */
  listCommits(id: string, q: PageQuery = {}): Promise<{ commits: LogEntry[]; total: number }> {
    return this.get(`/contracts/${enc(id)}/commits`, q);
  }
  /** `GET /contracts/:id/commits/:hash`. */
  getCommit(id: string, hash: string): Promise<LogEntry> {
    return this.get(`/contracts/${enc(id)}/commits/${enc(hash)}`);
  }
  /** `POST /contracts/:id/commits` (a field body, or `{commit}`). */
  submitCommit(id: string, body: SubmitCommitBody): Promise<SubmitCommitResult> {
    return this.post(`/contracts/${enc(id)}/commits`, { contract_id: id, ...body });
  }
  /** `POST /contracts/:id/push`. */
  push(id: string, commits: WireCommit[]): Promise<{ pushed: number; head: string }> {
    return this.post(`/contracts/${enc(id)}/push`, { commits });
  }
  /** `GET /contracts/:id/pull`. */
  pull(id: string, q: PullQuery = {}): Promise<PullResult & { commits: PulledCommit[] }> {
    return this.get(`/contracts/${enc(id)}/pull`, q);
  }
  /** `POST /contracts/:id/grant`. */
  grant(
    id: string,
    identity: string,
    role: GrantBody["role"],
  ): Promise<{ contract_id: string; identity: string; role: string }> {
    return this.post(`/contracts/${enc(id)}/grant`, { identity, role });
  }
  /**
   * `GET /contracts/:id/assets`: one page of the contract's books (default and largest: 1,000
   * assets and 1,000 balances), with `assets_total` and `balances_total`.
   */
  getAssets(id: string, q: PageQuery = {}): Promise<AssetsResult> {
    return this.get(`/contracts/${enc(id)}/assets`, q);
  }
  /**
   * Every asset the contract created and every balance it holds, asking page after page until
   * both lists are complete. Rows are only ever added, so a row added during the reads can
   * shift one already read onto the next page; each appears once, as last read.
   */
  async getAllAssets(id: string): Promise<AssetsResult> {
    const assets = new Map<string, AssetsResult["assets"][number]>();
    const balances = new Map<string, AssetsResult["balances"][number]>();
    let page = await this.getAssets(id);
    for (let offset = 0; ; ) {
      for (const a of page.assets) assets.set(a.asset_id, a);
      for (const b of page.balances) balances.set(`${b.issuer}/${b.asset_id}`, b);
      offset += Math.max(page.assets.length, page.balances.length);
      if (page.assets.length + page.balances.length === 0) break;
      if (offset >= Math.max(page.assets_total, page.balances_total)) break;
      page = await this.getAssets(id, { offset });
    }
    return {
      contract_id: page.contract_id,
      assets: [...assets.values()],
      balances: [...balances.values()],
      assets_total: assets.size,
      balances_total: balances.size,
    };
  }
  /**
   * `GET /contracts/:id/incoming`: the SENDs addressed to the contract, oldest first, with
   * their receipts; `pending: true` keeps the ones not yet received.
   */
  listIncomingSends(
    id: string,
    q: { pending?: boolean; limit?: number; offset?: number } = {},
  ): Promise<IncomingSendsResult> {
    const { pending, ...page } = q;
    return this.get(`/contracts/${enc(id)}/incoming`, {
      ...page,
      ...(pending !== undefined ? { pending: String(pending) } : {}),
    });
  }
  /** `POST /contracts/synthesize`. */
  synthesize(description: string, patternHint?: string): Promise<SynthesisResult> {
    return this.post("/contracts/synthesize", { description, ...(patternHint ? { pattern_hint: patternHint } : {}) });
  }
  /** `GET /templates`: the catalogue, each template without its model and rules. */
  listTemplates(): Promise<TemplateSummary[]> {
    return this.get("/templates");
  }
  /** `GET /templates/:id`: one template with its model, rules, parties and protections. */
  getTemplate(id: string): Promise<Template> {
    return this.get(`/templates/${enc(id)}`);
  }
  /** `POST /contracts/:id/proposals`: proposes a push-format commit for others to co-sign. */
  propose(id: string, commit: WireCommit): Promise<ProposalAnswer> {
    return this.post(`/contracts/${enc(id)}/proposals`, { commit });
  }
  /** `GET /contracts/:id/proposals` (status default open), newest first. */
  listProposals(
    id: string,
    q: { status?: ProposalView["status"]; limit?: number; offset?: number } = {},
  ): Promise<{ proposals: ProposalView[] }> {
    return this.get(`/contracts/${enc(id)}/proposals`, q);
  }
  /** `GET /contracts/:id/proposals/:hash`. */
  getProposal(id: string, hash: string): Promise<{ proposal: ProposalView }> {
    return this.get(`/contracts/${enc(id)}/proposals/${enc(hash)}`);
  }
  /** `POST /contracts/:id/proposals/:hash/signatures` (see proposalSignatures to make them). */
  signProposal(id: string, hash: string, signatures: Record<string, string>): Promise<ProposalAnswer> {
    return this.post(`/contracts/${enc(id)}/proposals/${enc(hash)}/signatures`, { signatures });
  }
  /** `DELETE /contracts/:id/proposals/:hash`: the proposer or the owner withdraws it. */
  withdrawProposal(id: string, hash: string): Promise<{ proposal: ProposalView }> {
    const path = `/contracts/${enc(id)}/proposals/${enc(hash)}`;
    return this.#call(this.url + path, async (stop) =>
      readBody(await this.#send(stop, "DELETE", this.url + path, path)),
    );
  }
  /** `POST /register` for an identity seed and an access seed (both sign). */
  register(
    identitySeed: Uint8Array,
    accessSeed: Uint8Array,
  ): Promise<{ identity: string; access_key: string; created_at: number }> {
    return this.post("/register", registrationBody(identitySeed, accessSeed));
  }
  /** `GET /access`. */
  access(): Promise<{
    identity: string;
    access_keys: { access_key: string; created_at: number; revoked_at: number | null }[];
  }> {
    return this.get("/access");
  }
  /** `POST /access/revoke`, signed by this client's key, or by `identitySeed` alone. */
  revoke(accessKey: string, identitySeed?: Uint8Array): Promise<{ access_key: string; revoked_at: number }> {
    return this.post(
      "/access/revoke",
      identitySeed ? revocationBody(identitySeed, accessKey) : { access_key: accessKey },
    );
  }

  /** Calls a JSON-RPC method on `rpcUrl` (signed); a JSON-RPC error throws a ContractError. */
  async rpc<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T> {
    if (!this.rpcUrl) throw new ContractError("INVALID_REQUEST", "HubClient has no rpcUrl");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) });
    const url = `${this.rpcUrl}/`;
    const msg = await this.#call(
      url,
      async (stop) =>
        (await (await this.#send(stop, "POST", url, "/", body)).json()) as {
          result?: T;
          error?: { message: string; data?: { code?: string; details?: Record<string, unknown> } };
        },
    );
    if (msg.error) throw errorOf(msg.error.data?.code, msg.error.message, msg.error.data?.details);
    return msg.result as T;
  }

  /**
   * `GET /checkpoint`: the signed checkpoint note, as text (check it with checkHubLog, never
   * trust it). A note is UTF-8 (C2SP signed-note): bytes that are not throw a CheckpointError,
   * and a byte order mark is kept (a note does not start with one), never dropped.
   */
  async checkpoint(): Promise<string> {
    const url = `${this.url}/checkpoint`;
    const bytes = await this.#call(url, async (stop) => {
      const res = await this.#send(stop, "GET", url, "/checkpoint");
      if (!res.ok) return readBody<never>(res, MAX_ANSWER);
      return readBoundedBytes(res, MAX_ANSWER, answerTooLarge);
    });
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new CheckpointError("checkpoint is not UTF-8");
    }
  }

  /** `GET /checkpoint/key`: the log key to pin (at clone or init, not on every call). */
  checkpointKey(): Promise<CheckpointKeyResult> {
    return this.get("/checkpoint/key", {}, MAX_ANSWER);
  }

  /** `GET /proofs/inclusion`. */
  inclusionProof(hash: string, size?: number): Promise<InclusionProofResult> {
    return this.get("/proofs/inclusion", { hash, size }, MAX_ANSWER);
  }

  /** `GET /proofs/consistency`. */
  consistencyProof(from: number, to: number): Promise<ConsistencyProofResult> {
    return this.get("/proofs/consistency", { from, to }, MAX_ANSWER);
  }

  /** Opens a WebSocket to the REST port (authenticated with the access key, when set). */
  connect(): Promise<HubSocket> {
    return HubSocket.connect(this.url, this.#key);
  }

  /**
   * A signed GET, retried when the failure may be transient. A key this hub does not know
   * (registered on another hub, or revoked) is refused even where no key is needed, so the
   * read is then asked again unsigned: public contracts read as they do anonymously. When that
   * fails too, the key's refusal is what the caller sees (a private contract then says why).
   * `maxBytes`: the most of the answer read (UPSTREAM_ERROR `answer_too_large` past it).
   */
  async get<T>(path: string, query: Query = {}, maxBytes?: number): Promise<T> {
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join("&");
    const pathAndQuery = qs ? `${path}?${qs}` : path;
    return this.#call(this.url + pathAndQuery, async (stop) => {
      try {
        return await this.#get<T>(stop, pathAndQuery, this.#key ?? null, maxBytes);
      } catch (err) {
        if (this.#key === undefined || !isUnknownKey(err)) throw err;
        return this.#get<T>(stop, pathAndQuery, null, maxBytes).catch(() => {
          throw err;
        });
      }
    });
  }

  /** `key` null: unsigned; `maxBytes`: the most of the answer read (else all of it). */
  async #get<T>(stop: AbortSignal | undefined, pathAndQuery: string, key: Uint8Array | null, maxBytes?: number) {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#send(stop, "GET", this.url + pathAndQuery, pathAndQuery, undefined, key);
      } catch (err) {
        // A cancelled call is not a failure that may pass: it is never asked again.
        if (attempt >= this.#retries || stop?.aborted) throw err;
        await sleep(this.#delay * 2 ** attempt, stop);
        continue;
      }
      if (RETRY_STATUS.has(res.status) && attempt < this.#retries) {
        await res.body?.cancel();
        await sleep(this.#delay * 2 ** attempt, stop);
        continue;
      }
      return readBody<T>(res, maxBytes);
    }
  }

  /** A signed POST of a JSON body (never retried: it may have been applied). */
  async post<T>(path: string, body: unknown): Promise<T> {
    return this.#call(this.url + path, async (stop) =>
      readBody<T>(await this.#send(stop, "POST", this.url + path, path, JSON.stringify(body))),
    );
  }

  /**
   * Runs one call under this client's `signal` and `timeoutMs` (`stop`: both in one signal,
   * undefined when neither is set). Cancelled, whether waiting for the answer, reading it or
   * between retries, it throws UNAVAILABLE `aborted` or `timeout` instead of what fetch threw.
   */
  async #call<T>(url: string, run: (stop: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const bound = this.#timeoutMs === undefined ? undefined : AbortSignal.timeout(this.#timeoutMs);
    const signals = [this.#signal, bound].filter((s) => s !== undefined);
    const stop = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    try {
      stop?.throwIfAborted();
      return await run(stop);
    } catch (err) {
      if (stop?.aborted !== true) throw err;
      throw bound?.aborted === true
        ? new ContractError(
            "UNAVAILABLE",
            `No answer from the hub at ${url} within ${this.#timeoutMs} ms`,
            { reason: "timeout", timeout_ms: this.#timeoutMs },
            { cause: err },
          )
        : new ContractError(
            "UNAVAILABLE",
            `Request to the hub at ${url} cancelled: ${reasonText(stop.reason)}`,
            { reason: "aborted" },
            { cause: err },
          );
    }
  }

  async #send(
    stop: AbortSignal | undefined,
    method: string,
    url: string,
    pathAndQuery: string,
    body?: string,
    key: Uint8Array | null = this.#key ?? null,
  ): Promise<Response> {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
    if (key) Object.assign(headers, signRequest(key, { method, url: pathAndQuery, body: body ?? "" }));
    try {
      return await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(stop === undefined ? {} : { signal: stop }),
      });
    } catch (err) {
      throw new ContractError(
        "UNAVAILABLE",
        `Cannot reach hub at ${url}: ${(err as Error).message}`,
        { reason: "network" },
        { cause: err },
      );
    }
  }
}

/** What an abort reason says: an Error's message, else the value as text. */
function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

async function readBody<T>(res: Response, maxBytes?: number): Promise<T> {
  const text =
    maxBytes === undefined
      ? await res.text()
      : new TextDecoder().decode(await readBoundedBytes(res, maxBytes, answerTooLarge));
  let body: unknown;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    throw new ContractError("UPSTREAM_ERROR", `Hub answered ${res.status} with a body that is not JSON`, {
      status: res.status,
    });
  }
  if (res.ok) return body as T;
  const e = (body ?? {}) as { error?: unknown; code?: string; details?: Record<string, unknown> };
  if (e.error !== undefined && typeof e.error !== "string") throw notHubError(res, body);
  throw errorOf(e.code, e.error ?? `Hub answered ${res.status}`, e.details);
}

/**
 * A refusal that is not the hub's error body: another server, most often the hub's own
 * JSON-RPC port given where the REST address belongs (its error is an object). Said as
 * such, rather than as a message of "[object Object]".
 */
function notHubError(res: Response, body: unknown): ContractError {
  const rpc = (body as { jsonrpc?: unknown }).jsonrpc !== undefined;
  const where = res.url === "" ? "The hub" : new URL(res.url).origin;
  return new ContractError(
    "UPSTREAM_ERROR",
    rpc
      ? `${where} answered ${res.status} as a JSON-RPC endpoint: give the hub's REST address (its --port), not its JSON-RPC port`
      : `${where} answered ${res.status} with a body that is not a hub's error`,
    { status: res.status, reason: rpc ? "json_rpc_endpoint" : "not_a_hub" },
  );
}

function isUnknownKey(err: unknown): boolean {
  return err instanceof ContractError && err.code === "UNAUTHORIZED" && err.details?.reason === "unknown_key";
}

function errorOf(code: unknown, message: string, details?: Record<string, unknown>): ContractError {
  return new ContractError(isErrorCode(code) ? code : "INTERNAL", message, details);
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/** Waits `ms`, or less: a `stop` that aborts ends the wait at once (the caller then gives up). */
function sleep(ms: number, stop?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    stop?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      stop?.removeEventListener("abort", done);
      resolve();
    }
  });
}
