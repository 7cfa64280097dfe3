import type { Caller } from "../api/Caller.js";
import type { StateView } from "../api/responses.js";
import { isContractId } from "../contract/Commit.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import type { ContractState } from "../contract/ContractState.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { AppendExtras, ContractRecord, StateSnapshot, Store } from "../store/Store.js";
import { type AccessFacts, canRead, canWrite, partyPaths } from "./acl.js";
import type { ContractCache } from "./ContractCache.js";
import { replayReachesHead } from "./corruptionChecks.js";
import type { EventBus } from "./EventBus.js";
import type { EngineSettings } from "./engineContext.js";
import type { HeavyWork } from "./heavy/HeavyWork.js";
import type { KeyedMutex } from "./KeyedMutex.js";
import { loadFromSnapshot, replayStored, snapshotOf, stepForward } from "./loadContractState.js";
import type { LiveCommit } from "./Subscription.js";

/** A template instantiation: the model, rules and initial state of a named template. */
export type TemplateInstantiator = (
  template: string,
  params: Record<string, unknown>,
) => { model: string | null; rules: string[]; state?: Record<string, unknown> } | undefined;

/** The collaborators every operation of the core receives. */
export interface HubParts {
  store: Store;
  cache: ContractCache;
  locks: KeyedMutex;
  bus: EventBus;
  /** Receipt time in integer seconds. */
  now: () => number;
  settings: EngineSettings;
  templates: TemplateInstantiator | undefined;
  /** Where expensive work runs (worker pool, slices) and each caller's budget of it. */
  work: HeavyWork;
  /** A state snapshot is stored each time a contract's length passes a multiple of this (0: never). */
  snapshotEvery: number;
  /** Failures of background work (snapshot writes), which never fail a request. */
  onError: (err: unknown) => void;
  /** Called after commits of `id` were published (the hub's own, or another instance's relayed). */
  onPublished: (id: string, commits: readonly StoredCommit[], origin: PublishOrigin) => void;
  /** Called when the first proposal listener of `id` registered, with the head it read before. */
  onProposalListening: (id: string, head: { index: number; hash: string }) => void;
}

/**
 * Where published commits come from: an append of this hub's (`append`), the append that
 * completes a proposal through its own route (`proposal`: that operation announces the
 * proposal), or another instance's append relayed to this one (`relayed`: that instance's
 * proposal notices announce what it changed).
 */
export type PublishOrigin = "append" | "proposal" | "relayed";

/** A contract, its state and the caller's standing, as an operation needs them. */
export type Loaded = AccessFacts;

const notFound = (id: string) =>
  new ContractError("NOT_FOUND", `Contract ${JSON.stringify(id)} not found`, { reason: "contract_not_found" });

/**
 * What the core's operations (create, submit, push, grant, subscribe, and the ones to come)
 * receive: the store, the state cache, the per-contract locks, the event bus, the clock and
 * the engine settings, plus the four steps every write shares: load the state, check access,
 * append, publish. Operations take this object; they never import the Hub class, which
 * builds it once and keeps it private (docs/architecture.md, "How a commit travels").
 */
export class HubContext implements HubParts {
  readonly store: Store;
  readonly cache: ContractCache;
  readonly locks: KeyedMutex;
  readonly bus: EventBus;
  readonly now: () => number;
  readonly settings: EngineSettings;
  readonly templates: TemplateInstantiator | undefined;
  readonly work: HeavyWork;
  readonly snapshotEvery: number;
  readonly onError: (err: unknown) => void;
  readonly onPublished: (id: string, commits: readonly StoredCommit[], origin: PublishOrigin) => void;
  readonly onProposalListening: (id: string, head: { index: number; hash: string }) => void;
  private readonly loading = new Map<string, Promise<ContractState>>();

  constructor(parts: HubParts) {
    this.store = parts.store;
    this.cache = parts.cache;
    this.locks = parts.locks;
    this.bus = parts.bus;
    this.now = parts.now;
    this.settings = parts.settings;
    this.templates = parts.templates;
    this.work = parts.work;
    this.snapshotEvery = parts.snapshotEvery;
    this.onError = parts.onError;
    this.onPublished = parts.onPublished;
    this.onProposalListening = parts.onProposalListening;
  }

  /**
   * The contract's state at the stored head: the cached one; the cached one stepped forward
   * through the commits another process stored since (not a replay of the whole log); the
   * newest stored snapshot stepped forward through the commits after it; or a trusted replay
   * of the store (which then stores a snapshot, so the next cold load is short).
   */
  async stateOf(record: ContractRecord, tick?: () => Promise<void>): Promise<ContractState> {
    const cached = this.cache.get(record.id);
    if (cached !== undefined && cached.head === record.head) return cached;
    const key = `${record.id}@${record.head}`;
    let pending = this.loading.get(key);
    if (pending === undefined) {
      // `tick`: the slices of a load a caller pays for (the default yields, charged to nobody).
      const settings = tick === undefined ? this.settings : { ...this.settings, tick };
      const behind = cached !== undefined && cached.length < record.length ? cached : undefined;
      const replay = async () => {
        const state = await replayStored(this.store, record, settings);
        if (this.snapshotEvery > 0 && state.length >= this.snapshotEvery) this.saveSnapshot(state);
        return state;
      };
      const cold = async () => (await this.snapshotLoad(record, settings)) ?? replay();
      pending = (behind ? stepForward(this.store, behind, record, settings).catch(replay) : cold())
        .then((state) => replayReachesHead(record, state))
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    const state = await pending;
    this.cache.set(state);
    return state;
  }

  /** The state from the contract's snapshot and tail, or null (none usable, or its tail did not follow: replay). */
  private async snapshotLoad(record: ContractRecord, settings: EngineSettings): Promise<ContractState | null> {
    if (this.snapshotEvery === 0) return null;
    try {
      return await loadFromSnapshot(this.store, record, settings);
    } catch (err) {
      if (err instanceof Error && err.name === "WorkStopped") throw err;
      return null;
    }
  }

  /**
   * Caches the state after an append of `count` commits, and stores its snapshot when the
   * append took the contract's length past a multiple of `snapshotEvery`. The text is taken
   * now (the state moves on with the next append); the write runs after the answer and its
   * failure only costs a longer cold load.
   */
  appended(state: ContractState, count: number): void {
    this.cache.set(state);
    const n = this.snapshotEvery;
    if (n > 0 && Math.floor(state.length / n) > Math.floor((state.length - count) / n)) this.saveSnapshot(state);
  }

  private saveSnapshot(state: ContractState): void {
    let snapshot: StateSnapshot;
    try {
      snapshot = snapshotOf(state);
    } catch (err) {
      this.onError(err);
      return;
    }
    this.store.saveSnapshot(snapshot).catch(this.onError);
  }

  /** Loads a contract for `caller`: NOT_FOUND when absent or unreadable, and for writes 401/403. */
  async access(caller: Caller, id: string, mode: "read" | "write"): Promise<Loaded> {
    if (mode === "write" && caller.identity === null) {
      throw new ContractError("UNAUTHORIZED", "Authentication is required to write", { reason: "unauthenticated" });
    }
    const record = isContractId(id) ? await this.store.getContract(id) : null;
    if (record === null) throw notFound(id);
    return this.accessTo(caller, record, mode);
  }

  /** True when the state at `record`'s head is in memory: reading it loads nothing. */
  holdsState(record: ContractRecord): boolean {
    return this.cache.get(record.id)?.head === record.head;
  }

  /**
   * As `access`, for a record the operation already read (one read of the contract row per
   * request); `tick` as for `stateOf`.
   */
  async accessTo(
    caller: Caller,
    record: ContractRecord,
    mode: "read" | "write",
    tick?: () => Promise<void>,
  ): Promise<Loaded> {
    if (mode === "write" && caller.identity === null) {
      throw new ContractError("UNAUTHORIZED", "Authentication is required to write", { reason: "unauthenticated" });
    }
    const state = await this.stateOf(record, tick);
    // The owner may do all a grant allows, so their grant (if any) decides nothing: not read.
    const grant =
      caller.identity === null || caller.identity === record.owner
        ? null
        : await this.store.getGrant(record.id, caller.identity);
    const facts = { record, state, grant };
    if (!canRead(caller, facts)) throw notFound(record.id);
    if (mode === "write" && !canWrite(caller, facts)) {
      throw new ContractError("FORBIDDEN", `Not allowed to write to contract ${record.id}`, { reason: "not_a_writer" });
    }
    return facts;
  }

  /**
   * Stores commits at `expectedHead`; a CONFLICT means another process moved the head, so the
   * cache is dropped. The caller's unspent request nonce, if any, is stored in the same
   * transaction (and marked spent once it is).
   */
  async append(
    id: string,
    expectedHead: string | null,
    commits: StoredCommit[],
    extras: AppendExtras = {},
    caller?: Caller,
  ): Promise<void> {
    // Every append path comes through here, so the party index cannot miss a `.id` write.
    const parties = partyPaths(commits);
    const nonce = caller?.nonce?.spent === false ? caller.nonce : undefined;
    // Copied with Object.assign: a spread followed by more fields is V8's slow path on Node 20.
    const all: AppendExtras = Object.assign({}, extras);
    if (parties.length > 0) all.parties = parties;
    if (nonce !== undefined) all.nonce = { accessKey: nonce.accessKey, nonce: nonce.nonce, expiresAt: nonce.expiresAt };
    try {
      await this.store.appendCommits(id, expectedHead, commits, all);
    } catch (err) {
      if (isContractError(err, "CONFLICT")) this.cache.delete(id);
      throw err;
    }
    if (nonce !== undefined) nonce.spent = true;
  }

  /** Hands acknowledged commits to the subscribers (views may be null: they are then read back). */
  publish(id: string, commits: StoredCommit[], views: (StateView | null)[], origin: PublishOrigin = "append"): void {
    const live: LiveCommit[] = commits.map((stored, i) => ({ contractId: id, stored, view: views[i] ?? null }));
    this.bus.publish(live);
    if (commits.length > 0) this.onPublished(id, commits, origin);
  }
}
