import type { Caller } from "../api/Caller.js";
import type { CommitEvent, ProposalView, PullResult, StateView, SubmitCommitResult } from "../api/responses.js";
import type {
  CreateContractBody,
  GrantBody,
  ListContractsQuery,
  PageQuery,
  PullQuery,
  PushBody,
  SubmitCommitBody,
  SynthesizeBody,
} from "../api/schemas.js";
import type { PulledCommit } from "../contract/Commit.js";
import { ContractError } from "../contract/ContractError.js";
import { stateView } from "../contract/engine.js";
import { decodeHash, IDENTITY_PREFIX, normalizeIdentity } from "../contract/hex.js";
import { DEFAULT_LIMITS } from "../contract/limits.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import { VERSION } from "../lib/version.js";
import { loadLogKey } from "../store/loadLogKey.js";
import { StorageGuard } from "../store/StorageGuard.js";
import type { GrantRole, Store } from "../store/Store.js";
import type { SynthesisOperations } from "../synthesis/hubOperations.js";
import type { SynthesisResult } from "../synthesis/SynthesisResult.js";
import type { Template, TemplateSummary } from "../templates/Template.js";
import type { TemplateCatalogue } from "../templates/templateCatalogue.js";
import type { LogKey } from "../tlog/LogKey.js";
import { ContractCache } from "./ContractCache.js";
import { CosignedCheckpoints, type WitnessPolicy } from "./CosignedCheckpoints.js";

export type { CheckpointWitness, WitnessPolicy } from "./CosignedCheckpoints.js";

import { listIncomingSends } from "./assets/listIncomingSends.js";
import { readAssetsPage } from "./assets/readAssetsPage.js";
import { createContract } from "./createContract.js";
import { EventBus } from "./EventBus.js";
import type { EngineSettings } from "./engineContext.js";
import type { HubApi, SynthesizeOptions } from "./HubApi.js";
import { HubContext } from "./HubContext.js";
import { HeavyWork } from "./heavy/HeavyWork.js";
import { synthesisWork } from "./heavy/synthesisWork.js";
import { yieldSometimes } from "./heavy/TimeSlice.js";
import { KeyedMutex } from "./KeyedMutex.js";
import { listContracts } from "./listContracts.js";
import { logPageText } from "./logPageText.js";
import { nonNegativeInteger } from "./pageQuery.js";
import { announceExpired, announceOpen, announceRelayed, StaleAnnouncer } from "./proposals/announceProposalChanges.js";
import { proposeCommit } from "./proposals/proposeCommit.js";
import { getProposal, listProposals } from "./proposals/readProposals.js";
import { signProposal } from "./proposals/signProposal.js";
import { withdrawProposal } from "./proposals/withdrawProposal.js";
import { pushCommits } from "./pushCommits.js";
import { readLogPage } from "./readLogPage.js";
import type { LiveCommit } from "./Subscription.js";
import { submitCommit } from "./submitCommit.js";
import { subscribeCommits, subscribeProposalEvents } from "./subscribeCommits.js";
import {
  CheckpointSigner,
  checkpointKey,
  consistencyProof,
  inclusionProof,
  type TransparencyParts,
} from "./transparency.js";

export interface HubOptions extends EngineSettings {
  store: Store;
  /** Contract states kept in memory (default 1000). */
  cacheSize?: number;
  /** Receipt time in integer seconds (default: the clock). */
  now?: () => number;
  version?: string;
  /** The template catalogue (`GET /templates`, `POST /contracts {template}`); without it those answer UNAVAILABLE and NOT_FOUND. */
  templates?: TemplateCatalogue;
  /** Synthesis (`POST /contracts/synthesize`); without it, UNAVAILABLE. */
  synthesis?: SynthesisOperations;
  /** Listener and replay failures of subscriptions (default: ignored). */
  onError?: (err: unknown) => void;
  /**
   * The key that signs checkpoints (default: the one kept with the store, default origin,
   * refused when the store records another as its log's; ../store/loadLogKey.ts). A key given
   * here is the caller's to check (`contract-hub start` does, with loadLogKey).
   */
  logKey?: LogKey;
  /** Witnesses whose cosignatures a checkpoint needs before it is served (default: none, served at once). */
  witnesses?: WitnessPolicy;
  /** Where expensive work runs and each caller's budget of it (default: the shared worker pool). */
  work?: HeavyWork;
  /** Expensive work per identity (per address when anonymous), CPU-milliseconds a minute (default 5,000; 0 = unlimited). */
  workBudgetMs?: number;
  /**
   * A contract's state snapshot is stored each time its length passes a multiple of this
   * (default 1000; 0: never), so a cold contract loads from it and the commits after it
   * (docs/storage.md).
   */
  snapshotEvery?: number;
}

/** Default of HubOptions.snapshotEvery. */
export const SNAPSHOT_EVERY = 1000;

/** How often expired proposals are looked for and announced (docs/proposals.md, "Events"). */
const PROPOSAL_SWEEP_MS = 60_000;

/** Commits past which a pull counts as expensive work (admitted by the caller's work budget). */
const LONG_PULL = 1000;

/**
 * Bytes of commits one unstreamed pull answer (JSON-RPC `pull`) carries at most, always at
 * least one commit. A commit may be a megabyte and the log has no length limit, so an
 * anonymous `pull` without `limit` parsed and serialized the whole log in one answer: 300 MB
 * of it held the event loop seconds and gigabytes could end the process. Past it the answer
 * ends with `has_more: true`; the next pull starts after its last commit (`since`).
 */
const PULL_ANSWER_BYTES = 8 * 1024 * 1024;

const unavailable = (operation: string) =>
  new ContractError("UNAVAILABLE", `This hub does not offer the ${operation} operation`, {
    reason: "operation_unavailable",
    operation,
  });

/**
 * The transport-free hub: the whole HubApi over a Store and the contract engine, built here
 * from its options. Its collaborators (store, cache, locks, bus, clock, settings) form one
 * HubContext, private to the hub, that each operation receives (docs/architecture.md).
 */
export class Hub implements HubApi {
  /**
   * The store the hub was given, behind its StorageGuard: storage faults reach callers as
   * UNAVAILABLE or CORRUPTED (its owner closes it, unless `ownsStore`).
   */
  readonly store: Store;
  readonly storage: StorageGuard;
  /** The event bus: a host relays other instances' commits onto it (PostgreSQL LISTEN/NOTIFY). */
  readonly bus: EventBus;
  private readonly ctx: HubContext;
  private readonly stale: StaleAnnouncer;
  private readonly version: string;
  private readonly templates: TemplateCatalogue | undefined;
  private readonly synthesis: SynthesisOperations | undefined;
  private readonly onError: (err: unknown) => void;
  private readonly ownsStore: boolean;
  private readonly accessListeners = new Set<(contractId: string, identity: string) => void>();
  private readonly transparency: TransparencyParts;
  private readonly checkpoints = new CheckpointSigner();
  private readonly cosigned: CosignedCheckpoints | undefined;
  /** Where the expiry sweep left off (seconds), and its timer. */
  private sweptTo: number;
  private readonly sweeper: NodeJS.Timeout;

  /**
   * Where a host relays other instances' commits (PostgreSQL LISTEN/NOTIFY): published as this
   * hub's own appends are (onto the bus, and the proposals each one made stale announced);
   * and the proposals other instances changed, read and announced to this hub's subscribers.
   */
  readonly relay = {
    hasListeners: (contractId: string): boolean =>
      this.bus.hasListeners(contractId) || this.bus.hasProposalListeners(contractId),
    publish: (commits: readonly LiveCommit[]): void => {
      for (const c of commits) this.ctx.publish(c.contractId, [c.stored], [c.view], "relayed");
    },
    listenedContracts: (): string[] => [...new Set([...this.bus.listenedContracts(), ...this.bus.proposalContracts()])],
    proposalChanged: (contractId: string, hash: string): Promise<void> => announceRelayed(this.ctx, contractId, hash),
    proposalsMissed: (contractId: string): Promise<void> => announceOpen(this.ctx, contractId),
  };

  constructor(options: HubOptions, ownsStore = false) {
    this.storage = StorageGuard.of(options.store);
    this.store = this.storage.store;
    this.bus = new EventBus();
    this.templates = options.templates;
    const work =
      options.work ?? new HeavyWork(options.workBudgetMs !== undefined ? { workBudgetMs: options.workBudgetMs } : {});
    this.ctx = new HubContext({
      store: this.store,
      cache: new ContractCache(options.cacheSize ?? 1000),
      locks: new KeyedMutex(),
      bus: this.bus,
      now: options.now ?? (() => Math.floor(Date.now() / 1000)),
      settings: {
        limits: options.limits ?? DEFAULT_LIMITS,
        wasm: options.wasm ?? null,
        assets: options.assets ?? null,
        // The hub's own replays: checks off the event loop, uncharged; long loops yield.
        checkRules: work.ownChecker(),
        compileModel: work.ownCompiler(),
        tick: yieldSometimes,
      },
      work,
      templates: options.templates ? (id, params) => options.templates!.instantiate(id, params) : undefined,
      snapshotEvery: options.snapshotEvery ?? SNAPSHOT_EVERY,
      onError: (err) => this.onError(err),
      // The proposals open on the replaced head are stale now: their subscribers hear of it.
      onPublished: (id, commits, origin) => this.stale.published(id, commits, origin),
      onProposalListening: (id, head) => this.stale.listening(id, head),
    });
    this.stale = new StaleAnnouncer(this.ctx);
    this.version = options.version ?? VERSION;
    this.synthesis = options.synthesis;
    this.onError = options.onError ?? (() => {});
    this.ownsStore = ownsStore;
    let logKey: Promise<LogKey> | undefined = options.logKey ? Promise.resolve(options.logKey) : undefined;
    // A failed load is forgotten (a database down for a moment, a key file being fixed): the
    // next checkpoint request loads again rather than failing until a restart.
    const load = (): Promise<LogKey> => {
      const loading: Promise<LogKey> = loadLogKey(this.store).catch((err: unknown) => {
        if (logKey === loading) logKey = undefined;
        throw err;
      });
      return loading;
    };
    this.transparency = {
      store: this.store,
      logKey: () => (logKey ??= load()),
      checkReadable: (caller, id) => this.ctx.access(caller, id, "read"),
    };
    if (options.witnesses !== undefined) {
      this.cosigned = new CosignedCheckpoints(options.witnesses, this.transparency, this.onError);
      this.cosigned.start();
    }
    this.sweptTo = this.ctx.now();
    this.sweeper = setInterval(() => {
      this.sweepProposalExpiry().catch(this.onError);
    }, PROPOSAL_SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * Announces the proposals whose lifetime ended since the last sweep to the subscribers of
   * their contracts (runs every minute; returns how many it announced).
   */
  async sweepProposalExpiry(): Promise<number> {
    const now = this.ctx.now();
    const since = this.sweptTo;
    this.sweptTo = now;
    try {
      return await announceExpired(this.ctx, since, now);
    } catch (err) {
      // The store could not be read (a storage fault): the next sweep covers this one's span
      // again, or what expired in it would never be announced. Repeats are not sent twice.
      this.sweptTo = Math.min(this.sweptTo, since);
      throw err;
    }
  }

  /** Closes subscriptions, then the store if the hub opened it. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.cosigned?.close();
    this.bus.closeAll();
    if (this.ownsStore) await this.store.close();
  }

  /** `ok`, or `degraded` naming the storage fault in force (the routes answer it with 503). */
  async health(): Promise<{ status: string; version: string; storage?: string }> {
    const fault = await this.storage.fault();
    return fault === null
      ? { status: "ok", version: this.version }
      : { status: "degraded", version: this.version, storage: fault };
  }

  // ---- contracts ----------------------------------------------------------------------

  listContracts(caller: Caller, q: ListContractsQuery) {
    return listContracts(this.ctx, caller, q);
  }

  createContract(caller: Caller, body: CreateContractBody): Promise<{ contract_id: string; created_at: number }> {
    return createContract(this.ctx, caller, body);
  }

  async getContract(caller: Caller, id: string) {
    const { record, state } = await this.ctx.access(caller, id, "read");
    return {
      contract_id: id,
      model: state.model?.text ?? null,
      rules: state.rules.map((r) => r.text),
      state: stateView(state),
      created_at: record.createdAt,
    };
  }

  async getState(caller: Caller, id: string): Promise<StateView> {
    return stateView((await this.ctx.access(caller, id, "read")).state);
  }

  /** `POST /contracts/:id/grant` (owner only): `role` `reader`, `writer` or `none`. */
  async grant(
    caller: Caller,
    id: string,
    body: GrantBody,
  ): Promise<{ contract_id: string; identity: string; role: string }> {
    const { record } = await this.ctx.access(caller, id, "write");
    if (record.owner !== caller.identity)
      throw new ContractError("FORBIDDEN", "Only the owner can grant access", { reason: "not_owner" });
    const identity = normalizeIdentity(body?.identity, "identity");
    const role = body?.role;
    if (role !== "reader" && role !== "writer" && role !== "none")
      throw new ContractError("INVALID_REQUEST", "Invalid role: expected reader, writer or none", { reason: "role" });
    const hex = identity.slice(IDENTITY_PREFIX.length);
    await this.store.setGrant(id, hex, role as GrantRole | "none", this.ctx.now());
    // Subscribers re-check their access: one who lost read access is cut off (docs/api.md).
    for (const listener of this.accessListeners) listener(id, hex);
    return { contract_id: id, identity, role };
  }

  /** Calls `listener(contractId, identity)` after the identity's grant on a contract changed; returns the unsubscribe function. */
  onAccessChange(listener: (contractId: string, identity: string) => void): () => void {
    this.accessListeners.add(listener);
    return () => this.accessListeners.delete(listener);
  }

  /** `GET /contracts/:id/assets`: a page of the assets created in the contract and of the balances it holds. */
  getAssets(caller: Caller, id: string, q: { limit?: unknown; offset?: unknown } = {}) {
    return readAssetsPage(this.ctx, caller, id, q);
  }

  listIncomingSends(caller: Caller, id: string, q: { pending?: unknown; limit?: unknown; offset?: unknown }) {
    return listIncomingSends(this.ctx, caller, id, q);
  }

  // ---- log and commits ----------------------------------------------------------------

  getLog(caller: Caller, id: string, q: PageQuery) {
    return readLogPage(this.ctx, caller, id, q);
  }

  async getLogText(caller: Caller, id: string, q: PageQuery) {
    return logPageText(this.ctx, caller, await this.getLog(caller, id, q));
  }

  async getCommit(caller: Caller, id: string, hash: string) {
    decodeHash(hash, "hash");
    await this.ctx.access(caller, id, "read");
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
    return submitCommit(this.ctx, caller, id, body);
  }

  push(caller: Caller, id: string, body: PushBody): Promise<{ pushed: number; head: string }> {
    return pushCommits(this.ctx, caller, id, body);
  }

  // ---- checkpoints and proofs (transparency.ts) ------------------------------------------

  async getCheckpoint() {
    // With witnesses, only a checkpoint that carries their quorum of cosignatures.
    return this.cosigned !== undefined ? this.cosigned.served() : this.checkpoints.current(this.transparency);
  }

  async getCheckpointKey() {
    const key = await checkpointKey(this.transparency);
    if (this.cosigned === undefined) return key;
    // The served size in the state is the one GET /checkpoint would answer now (another instance's, maybe).
    await this.cosigned.refresh();
    return { ...key, witnesses: this.cosigned.status() };
  }

  getInclusionProof(caller: Caller, q: { hash?: unknown; size?: unknown }) {
    return inclusionProof(this.transparency, caller, q);
  }

  getConsistencyProof(q: { from?: unknown; to?: unknown }) {
    return consistencyProof(this.transparency, q);
  }

  // ---- pull and events ----------------------------------------------------------------

  async pull(caller: Caller, id: string, q: PullQuery): Promise<PullResult> {
    const stream = await this.pullStream(caller, id, q);
    const commits: PulledCommit[] = [];
    // Not streamed (JSON-RPC answers are one body): bounded in bytes, then `has_more` says so.
    let bytes = 0;
    let cut = false;
    pages: for await (const page of stream.pages) {
      for (const text of page) {
        if (commits.length > 0 && bytes + text.length > PULL_ANSWER_BYTES) {
          cut = true;
          break pages;
        }
        bytes += text.length;
        commits.push(JSON.parse(text) as PulledCommit);
      }
    }
    const result: PullResult = { contract_id: id, head: stream.head, commits };
    if (cut) result.has_more = true;
    else if (q.limit !== undefined) result.has_more = stream.hasMore();
    return result;
  }

  async pullStream(caller: Caller, id: string, q: PullQuery) {
    const limit = nonNegativeInteger(q.limit, "limit");
    if (q.since !== undefined) decodeHash(q.since, "since");
    const { record } = await this.ctx.access(caller, id, "read");
    let from = 0;
    if (q.since !== undefined) {
      const since = await this.store.getCommitByHash(id, q.since);
      if (since === null)
        throw new ContractError("NOT_FOUND", `Commit ${q.since} not found in ${id}`, { reason: "since_not_found" });
      from = since.index + 1;
    }
    // Bounded by the length read with the head, so `head` and the commits agree.
    const end = limit === undefined ? record.length : Math.min(record.length, from + limit);
    // A long pull is expensive work of the caller: admitted by its budget, read in slices that
    // yield to other requests, and charged for its time, but for the waits its writer marks
    // with `idle` and `busy` (the REST writer's, while a slow reader keeps the socket full).
    if (end - from > LONG_PULL) this.ctx.work.admit(caller);
    const store = this.store;
    const work = this.ctx.work;
    const slice = work.slice(caller);
    // Pages of stored texts (docs/storage.md): the commits are never parsed or serialised here.
    async function* pages() {
      try {
        for await (const page of store.readPullTexts(id, from, end)) {
          await slice.tick();
          yield page;
        }
      } finally {
        slice.done();
      }
    }
    return {
      contract_id: id,
      head: record.head,
      pages: pages(),
      hasMore: () => end < record.length,
      idle: () => work.charge(caller, slice.finish()),
      busy: () => slice.begin(),
    };
  }

  subscribe(
    caller: Caller,
    id: string,
    since: number | string | undefined,
    listener: (event: CommitEvent) => void,
    onClosed?: (reason: "access_lost" | "access_key_revoked") => void,
  ): Promise<() => void> {
    return subscribeCommits(this.ctx, caller, id, since, listener, this.onError, onClosed);
  }

  ticker(caller: Caller): () => Promise<void> {
    return this.ctx.work.ticker(caller);
  }

  // ---- synthesis and templates --------------------------------------------------------

  synthesize(caller: Caller, body: SynthesizeBody, opts: SynthesizeOptions = {}): Promise<SynthesisResult> {
    if (this.synthesis === undefined) return Promise.reject(unavailable("synthesize"));
    return this.synthesis.synthesize(caller, body, synthesisWork(this.ctx.work, caller), opts.signal);
  }

  listTemplates(): TemplateSummary[] {
    if (this.templates === undefined) throw unavailable("listTemplates");
    return this.templates.list();
  }

  getTemplate(id: string): Template {
    if (this.templates === undefined) throw unavailable("getTemplate");
    return this.templates.get(id);
  }

  // ---- proposals (each operation in src/hub/proposals) --------------------------------

  propose(caller: Caller, id: string, body: { commit?: unknown }) {
    return proposeCommit(this.ctx, caller, id, body);
  }

  listProposals(caller: Caller, id: string, q: { status?: unknown; limit?: unknown; offset?: unknown }) {
    return listProposals(this.ctx, caller, id, q);
  }

  getProposal(caller: Caller, id: string, hash: string) {
    return getProposal(this.ctx, caller, id, hash);
  }

  signProposal(caller: Caller, id: string, hash: string, body: { signatures?: unknown }) {
    return signProposal(this.ctx, caller, id, hash, body);
  }

  withdrawProposal(caller: Caller, id: string, hash: string) {
    return withdrawProposal(this.ctx, caller, id, hash);
  }

  subscribeProposals(
    caller: Caller,
    id: string,
    listener: (proposal: ProposalView) => void,
    onClosed?: (reason: "access_lost" | "access_key_revoked") => void,
  ): Promise<() => void> {
    return subscribeProposalEvents(this.ctx, caller, id, listener, this.onError, onClosed);
  }
}
