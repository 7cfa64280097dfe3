import { randomBytes } from "node:crypto";
import { isContractId, type WireCommit } from "../contract/Commit.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import type { ContractState } from "../contract/ContractState.js";
import { acceptGenesis, buildCommit, genesisData, stateView } from "../contract/engine.js";
import { decodeHash, IDENTITY_PREFIX, normalizeIdentity } from "../contract/hex.js";
import { DEFAULT_LIMITS } from "../contract/limits.js";
import { type StoredCommit, toLogEntry, toPulledCommit } from "../contract/StoredCommit.js";
import type { AppendExtras, ContractRecord, GrantRole, Store } from "../store/Store.js";
import { type AccessFacts, canRead, canWrite, partyPaths } from "./acl.js";
import { ContractCache } from "./ContractCache.js";
import { replayReachesHead } from "./corruptionChecks.js";
import { EventBus } from "./EventBus.js";
import { type EngineSettings, engineContext } from "./engineContext.js";
import { genesisInput, readersOf } from "./genesisInput.js";
import type {
  Caller,
  CommitEvent,
  CreateContractBody,
  HubApi,
  PullResult,
  StateView,
  SubmitCommitBody,
  SubmitCommitResult,
} from "./HubApi.js";
import { KeyedMutex } from "./KeyedMutex.js";
import { replayStored, stepForward } from "./loadContractState.js";
import { nonNegativeInteger, pageQuery } from "./pageQuery.js";
import { pushCommits } from "./pushCommits.js";
import { replayEvents } from "./replayEvents.js";
import { type LiveCommit, Subscription } from "./Subscription.js";
import { submitCommit } from "./submitCommit.js";

/** A template instantiation (the templates module provides it). */
export type TemplateInstantiator = (
  template: string,
  params: Record<string, unknown>,
) => { model: string | null; rules: string[]; state?: Record<string, unknown> } | undefined;

export interface HubOptions extends EngineSettings {
  store: Store;
  /** Contract states kept in memory (default 1000). */
  cacheSize?: number;
  /** Receipt time in integer seconds (default: the clock). */
  now?: () => number;
  version?: string;
  templates?: TemplateInstantiator;
  /** Listener and replay failures of subscriptions (default: ignored). */
  onError?: (err: unknown) => void;
}

/** A contract, its state and the caller's standing, as an operation needs them. */
export type Loaded = AccessFacts;

const notFound = (id: string) =>
  new ContractError("NOT_FOUND", `Contract ${JSON.stringify(id)} not found`, { reason: "contract_not_found" });

/** The transport-free hub (ARCHITECTURE.md): HubApi over a Store and the contract engine. */
export class Hub implements HubApi {
  readonly store: Store;
  readonly cache: ContractCache;
  readonly bus = new EventBus();
  readonly locks = new KeyedMutex();
  readonly settings: EngineSettings;
  readonly now: () => number;
  private readonly version: string;
  private readonly templates: TemplateInstantiator | undefined;
  private readonly onError: (err: unknown) => void;
  private readonly ownsStore: boolean;
  private readonly loading = new Map<string, Promise<ContractState>>();
  private readonly accessListeners = new Set<(contractId: string, identity: string) => void>();

  constructor(options: HubOptions, ownsStore = false) {
    this.store = options.store;
    this.cache = new ContractCache(options.cacheSize ?? 1000);
    this.settings = {
      limits: options.limits ?? DEFAULT_LIMITS,
      wasm: options.wasm ?? null,
      assets: options.assets ?? null,
    };
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.version = options.version ?? "0.1.0";
    this.templates = options.templates;
    this.onError = options.onError ?? (() => {});
    this.ownsStore = ownsStore;
  }

  /** Closes subscriptions, then the store if the hub opened it. */
  async close(): Promise<void> {
    this.bus.closeAll();
    if (this.ownsStore) await this.store.close();
  }

  health(): { status: string; version: string } {
    return { status: "ok", version: this.version };
  }

  // ---- loading and access -------------------------------------------------------------

  /**
   * The contract's state at the stored head: the cached one; the cached one stepped forward
   * through the commits another process stored since (not a replay of the whole log); or a
   * trusted replay of the store.
   */
  async stateOf(record: ContractRecord): Promise<ContractState> {
    const cached = this.cache.get(record.id);
    if (cached !== undefined && cached.head === record.head) return cached;
    const key = `${record.id}@${record.head}`;
    let pending = this.loading.get(key);
    if (pending === undefined) {
      const behind = cached !== undefined && cached.length < record.length ? cached : undefined;
      const replay = () => replayStored(this.store, record, this.settings);
      pending = (behind ? stepForward(this.store, behind, record, this.settings).catch(replay) : replay())
        .then((state) => replayReachesHead(record, state))
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    const state = await pending;
    this.cache.set(state);
    return state;
  }

  /** Loads a contract for `caller`: NOT_FOUND when absent or unreadable, and for writes 401/403. */
  async access(caller: Caller, id: string, mode: "read" | "write"): Promise<Loaded> {
    if (mode === "write" && caller.identity === null) {
      throw new ContractError("UNAUTHORIZED", "Authentication is required to write", { reason: "unauthenticated" });
    }
    const record = isContractId(id) ? await this.store.getContract(id) : null;
    if (record === null) throw notFound(id);
    const state = await this.stateOf(record);
    const grant = caller.identity === null ? null : await this.store.getGrant(id, caller.identity);
    const facts = { record, state, grant };
    if (!canRead(caller, facts)) throw notFound(id);
    if (mode === "write" && !canWrite(caller, facts)) {
      throw new ContractError("FORBIDDEN", `Not allowed to write to contract ${id}`, { reason: "not_a_writer" });
    }
    return facts;
  }

  /** Stores commits at `expectedHead`; a CONFLICT means another process moved the head, so the cache is dropped. */
  async append(id: string, expectedHead: string | null, commits: StoredCommit[], extras?: AppendExtras): Promise<void> {
    // Every append path comes through here, so the party index cannot miss a `.id` write.
    const parties = partyPaths(commits);
    try {
      await this.store.appendCommits(id, expectedHead, commits, parties.length > 0 ? { ...extras, parties } : extras);
    } catch (err) {
      if (isContractError(err, "CONFLICT")) this.cache.delete(id);
      throw err;
    }
  }

  /** Hands acknowledged commits to the subscribers (views may be null: they are then read back). */
  publish(id: string, commits: StoredCommit[], views: (StateView | null)[]): void {
    const live: LiveCommit[] = commits.map((stored, i) => ({ contractId: id, stored, view: views[i] ?? null }));
    this.bus.publish(live);
  }

  // ---- contracts ----------------------------------------------------------------------

  async listContracts(caller: Caller, q: { limit?: number; offset?: number }) {
    const { limit, offset } = pageQuery(q);
    const { contracts, total } = await this.store.listContracts({ identity: caller.identity, limit, offset });
    return {
      contracts: contracts.map((c) => ({
        contract_id: c.id,
        owner: IDENTITY_PREFIX + c.owner,
        created_at: c.createdAt,
        head: c.head,
        commit_count: c.length,
        private: c.private,
      })),
      total,
    };
  }

  async createContract(caller: Caller, body: CreateContractBody): Promise<{ contract_id: string; created_at: number }> {
    if (caller.identity === null) {
      throw new ContractError("UNAUTHORIZED", "Authentication is required to create a contract", {
        reason: "unauthenticated",
      });
    }
    const input = genesisInput(caller.identity, body, this.templates);
    const id = body.contract_id ?? `c_${randomBytes(12).toString("hex")}`;
    if (!isContractId(id) || id === "synthesize") {
      throw new ContractError("INVALID_REQUEST", `Invalid contract_id ${JSON.stringify(id)}`, {
        reason: "contract_id",
        field: "contract_id",
      });
    }
    const readers = readersOf(body.readers);
    const commit = buildCommit(id, null, genesisData(input));
    return this.locks.run(id, async () => {
      const existing = await this.store.getContract(id);
      if (existing !== null) {
        // The id is taken either way; the head of a private contract is only told to its readers.
        const readable =
          !existing.private ||
          (await this.access(caller, id, "read").then(
            () => true,
            () => false,
          ));
        throw new ContractError("CONFLICT", `Contract ${id} already exists`, {
          reason: "contract_exists",
          ...(readable ? { head: existing.head } : {}),
        });
      }
      const timestamp = this.now();
      const ctx = engineContext(this.store, id, 0, [], this.settings, { timestamp });
      const { state, stored } = await acceptGenesis(id, commit, ctx);
      const contract = {
        owner: caller.identity!,
        createdAt: timestamp,
        private: readers !== null,
        readers: readers ?? [],
      };
      await this.append(id, null, [stored], { contract });
      this.cache.set(state);
      this.publish(id, [stored], [stateView(state)]);
      return { contract_id: id, created_at: timestamp };
    });
  }

  async getContract(caller: Caller, id: string) {
    const { record, state } = await this.access(caller, id, "read");
    return {
      contract_id: id,
      model: state.model?.text ?? null,
      rules: state.rules.map((r) => r.text),
      state: stateView(state),
      created_at: record.createdAt,
    };
  }

  async getState(caller: Caller, id: string): Promise<StateView> {
    return stateView((await this.access(caller, id, "read")).state);
  }

  /** `POST /contracts/:id/grant` (owner only): `role` `reader`, `writer` or `none`. */
  async grant(
    caller: Caller,
    id: string,
    body: { identity: string; role: string },
  ): Promise<{ contract_id: string; identity: string; role: string }> {
    const { record } = await this.access(caller, id, "write");
    if (record.owner !== caller.identity)
      throw new ContractError("FORBIDDEN", "Only the owner can grant access", { reason: "not_owner" });
    const identity = normalizeIdentity(body?.identity, "identity");
    const role = body?.role;
    if (role !== "reader" && role !== "writer" && role !== "none")
      throw new ContractError("INVALID_REQUEST", "Invalid role: expected reader, writer or none", { reason: "role" });
    const hex = identity.slice(IDENTITY_PREFIX.length);
    await this.store.setGrant(id, hex, role as GrantRole | "none", this.now());
    // Subscribers re-check their access: one who lost read access is cut off (PROTOCOL.md §9).
    for (const listener of this.accessListeners) listener(id, hex);
    return { contract_id: id, identity, role };
  }

  /** Calls `listener(contractId, identity)` after the identity's grant on a contract changed; returns the unsubscribe function. */
  onAccessChange(listener: (contractId: string, identity: string) => void): () => void {
    this.accessListeners.add(listener);
    return () => this.accessListeners.delete(listener);
  }

  /** `GET /contracts/:id/assets`: assets created in the contract and the balances it holds. */
  async getAssets(caller: Caller, id: string) {
    await this.access(caller, id, "read");
    const { assets, balances } = await this.store.getAssets(id);
    return {
      contract_id: id,
      assets: assets.map((a) => ({
        asset_id: a.assetId,
        issuer: a.issuer,
        quantity: a.quantity,
        divisibility: a.divisibility,
      })),
      balances: balances.map((b) => ({ asset_id: b.assetId, issuer: b.issuer, amount: b.amount })),
    };
  }

  // ---- log and commits ----------------------------------------------------------------

  async getLog(caller: Caller, id: string, q: { limit?: number; offset?: number }) {
    const { limit, offset } = pageQuery(q);
    const { record } = await this.access(caller, id, "read");
    const commits = [];
    for await (const c of this.store.readCommits(id, offset, Math.min(offset + limit, record.length)))
      commits.push(toLogEntry(c));
    return { commits, total: record.length };
  }

  async getCommit(caller: Caller, id: string, hash: string) {
    decodeHash(hash, "hash");
    await this.access(caller, id, "read");
    const c = await this.store.getCommitByHash(id, hash);
    if (c === null)
      throw new ContractError("NOT_FOUND", `Commit ${hash} not found in ${id}`, { reason: "commit_not_found" });
    return toLogEntry(c);
  }

  submitCommit(
    caller: Caller,
    id: string,
    body: SubmitCommitBody,
  ): Promise<{ result: SubmitCommitResult; created: boolean }> {
    return submitCommit(this, caller, id, body);
  }

  push(caller: Caller, id: string, body: { commits: WireCommit[] }): Promise<{ pushed: number; head: string }> {
    return pushCommits(this, caller, id, body);
  }

  // ---- pull and events ----------------------------------------------------------------

  async pull(caller: Caller, id: string, q: { since?: string; limit?: number }): Promise<PullResult> {
    const stream = await this.pullStream(caller, id, q);
    const commits = [];
    for await (const c of stream.commits) commits.push(c);
    const result: PullResult = { contract_id: id, head: stream.head, commits };
    if (q.limit !== undefined) result.has_more = stream.hasMore();
    return result;
  }

  async pullStream(caller: Caller, id: string, q: { since?: string; limit?: number }) {
    const limit = nonNegativeInteger(q.limit, "limit");
    if (q.since !== undefined) decodeHash(q.since, "since");
    const { record } = await this.access(caller, id, "read");
    let from = 0;
    if (q.since !== undefined) {
      const since = await this.store.getCommitByHash(id, q.since);
      if (since === null)
        throw new ContractError("NOT_FOUND", `Commit ${q.since} not found in ${id}`, { reason: "since_not_found" });
      from = since.index + 1;
    }
    // Bounded by the length read with the head, so `head` and the commits agree.
    const end = limit === undefined ? record.length : Math.min(record.length, from + limit);
    const store = this.store;
    async function* commits() {
      for await (const c of store.readCommits(id, from, end)) yield toPulledCommit(c);
    }
    return { contract_id: id, head: record.head, commits: commits(), hasMore: () => end < record.length };
  }

  async subscribe(
    caller: Caller,
    id: string,
    since: number | string | undefined,
    listener: (event: CommitEvent) => void,
  ): Promise<() => void> {
    const { record } = await this.access(caller, id, "read");
    let from = record.length;
    if (typeof since === "string") {
      decodeHash(since, "since");
      const c = await this.store.getCommitByHash(id, since);
      if (c === null)
        throw new ContractError("NOT_FOUND", `Commit ${since} not found in ${id}`, { reason: "since_not_found" });
      from = c.index + 1;
    } else if (since !== undefined) {
      from = nonNegativeInteger(since, "since")!;
    }
    const source = (a: number, b: number) => {
      const cached = this.cache.get(id);
      return replayEvents(
        this.store,
        id,
        a,
        b,
        this.settings,
        cached && cached.length <= a ? cached.clone() : undefined,
      );
    };
    const sub = new Subscription(id, from, record.length, listener, source, this.onError);
    const unsubscribe = this.bus.add(sub);
    // Commits published between our read and the registration are stored: replay them too.
    const latest = await this.store.getContract(id);
    if (latest !== null) sub.catchUpTo(latest.length);
    // Deliver after the caller got its unsubscribe handle (and could answer the subscribe request).
    setImmediate(() => sub.start());
    return unsubscribe;
  }
}
