/**
 * One WebSocket connection (docs/api.md): a hello with a challenge, JSON-RPC over the
 * socket, `authenticate`, and `subscribe`/`unsubscribe` whose `commit` notifications are sent
 * in log order. Events that arrive before the `subscribe` answer is written are held back,
 * so a client always learns its subscription id before the first event naming it.
 */
import { randomBytes } from "node:crypto";
import { Type } from "typebox";
import type { WebSocket } from "ws";
import * as S from "../api/schemas.js";
import { ContractError } from "../contract/ContractError.js";
import { formatIdentity } from "../contract/hex.js";
import type { Caller, CommitEvent, ProposalView } from "../hub/HubApi.js";
import { VERSION } from "../lib/version.js";
import { callerSubscriptionsFor } from "./CallerSubscriptions.js";
import type { HttpOptions } from "./HttpOptions.js";
import { limiterFor } from "./RateLimiter.js";
import { registrationLimitFor } from "./RegistrationLimit.js";
import { failure, invalid, type RpcDispatcher, toRpcError } from "./RpcDispatcher.js";
import { RPC_METHODS, type RpcContext, type RpcMethod } from "./rpcMethods.js";
import {
  type EventMessage,
  eventMessage,
  logEntryText,
  type MessagePart,
  proposalText,
  stateViewText,
} from "./sharedEventText.js";
import { toContractError } from "./toContractError.js";

/** RPC context of a socket call: the session is reachable for the socket-only methods. */
export interface SocketContext extends RpcContext {
  session: SocketSession;
  /**
   * The subscriptions this frame's requests created. Their held-back events are released
   * once the frame's answer is sent, and only theirs: requests of other frames run at the
   * same time, and one of them finishing says nothing about these answers.
   */
  subscribed: string[];
}

interface Subscription {
  contractId: string;
  /**
   * Who subscribed: the access it was granted with. A socket may re-authenticate with another
   * key later; revoking this key, or this identity losing read access, still ends it.
   */
  caller: Caller;
  ready: boolean;
  queue: Array<CommitEvent | { proposal: unknown }>;
  stop: (() => void) | null;
  /** Frees its place among its caller's subscriptions (CallerSubscriptions); safe to call again. */
  release: () => void;
}

/**
 * Subscriptions one connection may hold at once, by default. Without a cap one socket (an
 * anonymous one too: a batch of 100 `subscribe` calls counts once against the rate limit)
 * subscribed to a contract tens of thousands of times, each subscription holding a few KB and
 * costing one serialized event per commit of that contract.
 */
const DEFAULT_SOCKET_SUBSCRIPTIONS = 100;

/** Past this many unsent bytes the client is too slow; it is disconnected rather than buffered without bound. */
const MAX_BUFFERED = 64 * 1024 * 1024;

/** The per-connection state of `/ws`. */
export class SocketSession {
  readonly challenge = randomBytes(32).toString("hex");
  /** Texts to send once the first is written (#sendText). */
  #waiting: EventMessage[] = [];
  caller: Caller;
  readonly #socket: WebSocket;
  readonly #options: HttpOptions;
  readonly #subs = new Map<string, Subscription>();
  #next = 1;
  #closed = false;
  /** Aborted once the socket is closing: requests still running (a synthesis) stop their work. */
  readonly #gone = new AbortController();
  /** Called once the connection authenticated (it then no longer counts as anonymous). */
  onAuthenticated: () => void = () => {};

  /** The key of the connection's client address (request.clientAddress): its per-address limits. */
  readonly #address: string;

  constructor(socket: WebSocket, caller: Caller, options: HttpOptions, address = "unknown") {
    this.#socket = socket;
    this.caller = caller;
    this.#options = options;
    this.#address = address;
  }

  /** Starts the session: hello, then one JSON-RPC exchange per text frame. */
  start(dispatcher: RpcDispatcher<SocketContext>): void {
    const stopRevoke = this.#options.registry.onRevoke((key) => this.#onRevoked(key));
    const stopAccess =
      this.#options.hub.onAccessChange?.((contractId, identity) => void this.#recheck(contractId, identity)) ??
      (() => {});
    this.#socket.on("close", () => {
      this.#end();
      stopRevoke();
      stopAccess();
    });
    this.#socket.on("message", async (data, isBinary) => {
      // Each frame is a request: it spends the key's and its identity's (or the address's)
      // tokens, and a key revoked elsewhere (another hub instance) is noticed before the frame
      // runs: the socket's key and every key a subscription was made under.
      const key = this.caller.accessKey;
      try {
        const limiter = limiterFor(this.#options);
        if (key !== null) limiter.take(key, this.caller.identity);
        else limiter.takeAddress(this.#address);
      } catch (err) {
        this.send(failure(null, toRpcError(toContractError(err))));
        return;
      }
      if (isBinary) {
        // Requests are JSON texts; a binary frame is refused as such, whatever it holds.
        this.send(
          failure(null, invalid("binary frames are not accepted; send each request as a text frame", "binary_frame")),
        );
        return;
      }
      // ws has checked that a text frame is UTF-8 (closing with 1007 otherwise).
      const text = data.toString();
      for (const k of this.#keysInUse()) if (!(await this.#options.registry.isActive(k))) this.#onRevoked(k);
      const ctx: SocketContext = {
        hub: this.#options.hub,
        registry: this.#options.registry,
        caller: this.caller,
        version: this.#options.version ?? VERSION,
        session: this,
        subscribed: [],
        signal: this.#gone.signal,
        // The socket's address, also once it authenticated (its caller then carries none).
        admitNewIdentity: () => registrationLimitFor(this.#options).take(this.#address),
      };
      const answer = await dispatcher.handleText(text, ctx);
      if (answer !== null) this.#sendText(answer);
      this.#release(ctx.subscribed);
    });
    this.send({
      jsonrpc: "2.0",
      method: "hello",
      params: { challenge: this.challenge, version: this.#options.version ?? VERSION },
    });
  }

  /** Writes one JSON message, dropping slow consumers. */
  send(message: unknown): void {
    if (this.#closed || this.#socket.readyState !== this.#socket.OPEN) return;
    this.#sendText(JSON.stringify(message));
  }

  /**
   * Sends `text`, or queues it behind texts still being written (a big event's, in slices):
   * a socket's messages leave in the order they were made, so a subscriber sees its events in
   * log order and every `subscribe` answer before the events it names.
   */
  #sendText(text: EventMessage): void {
    if (typeof text === "string" && this.#waiting.length === 0) {
      this.#write(text);
      return;
    }
    this.#waiting.push(text);
    if (this.#waiting.length === 1) void this.#drain();
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      let text: string | readonly MessagePart[];
      try {
        text = await this.#waiting[0]!;
      } catch {
        // An event that could not be written is lost to this socket: closing it lets the
        // client resubscribe with `since` and miss nothing, rather than a silent gap.
        this.#waiting.length = 0;
        this.#end();
        this.#socket.close(1011, "an event could not be written");
        return;
      }
      this.#waiting.shift();
      this.#write(text);
    }
  }

  #write(message: string | readonly MessagePart[]): void {
    if (this.#closed || this.#socket.readyState !== this.#socket.OPEN) return;
    if (this.#socket.bufferedAmount > MAX_BUFFERED) {
      // Nothing more is sent from here on, so the subscriptions stop now: waiting for the
      // "close" event (the close handshake, up to 30 s with a client that reads nothing)
      // would leave their replays computing events only to drop them.
      this.#end();
      this.#socket.close(1013, "client too slow");
      return;
    }
    if (typeof message === "string") {
      this.#socket.send(message);
      return;
    }
    // One text message in fragments: the texts around a big shared text, then its pieces as
    // they are, sent back to back so nothing of this socket comes between them.
    const fragments: Array<string | Buffer> = [];
    for (const part of message) {
      if (typeof part === "string") fragments.push(part);
      else fragments.push(...part);
    }
    fragments.forEach((fragment, i) => {
      this.#socket.send(fragment, { binary: false, fin: i === fragments.length - 1 });
    });
  }

  /**
   * Sends nothing more, stops every subscription (and the replay of any) and cancels the
   * requests still running: the socket is closing.
   */
  #end(): void {
    this.#closed = true;
    this.#gone.abort();
    for (const sub of this.#subs.values()) {
      sub.stop?.();
      sub.release();
    }
    this.#subs.clear();
  }

  /** Verifies `authenticate {key, signature}` over this connection's challenge and adopts the caller. */
  async authenticate(key: unknown, signature: unknown): Promise<Caller> {
    this.caller = await this.#options.authenticator.authenticateSocket(this.challenge, key, signature);
    this.onAuthenticated();
    return this.caller;
  }

  /** Subscribes to a contract's commits from `since`; returns the subscription id. */
  async subscribe(contractId: string, since: number | string | undefined): Promise<string> {
    const caller = this.caller;
    const limit = this.#options.socketSubscriptions ?? DEFAULT_SOCKET_SUBSCRIPTIONS;
    const connectionFull = limit > 0 && this.#subs.size >= limit;
    // The caller's cap first: when it is reached too, another connection would not help.
    const release = callerSubscriptionsFor(this.#options).take({ identity: caller.identity, address: this.#address });
    if (connectionFull) {
      release();
      throw new ContractError(
        "RATE_LIMITED",
        `This connection already holds ${limit} subscriptions (the limit): unsubscribe one, or open another connection`,
        { reason: "too_many_subscriptions", scope: "connection", limit },
      );
    }
    const id = `s${this.#next++}`;
    const sub: Subscription = { contractId, caller, ready: false, queue: [], stop: null, release };
    this.#subs.set(id, sub);
    const deliver = (event: CommitEvent | { proposal: unknown }) => {
      if (sub.ready) this.#notify(id, event);
      else sub.queue.push(event);
    };
    try {
      const stopCommits = await this.#options.hub.subscribe(caller, contractId, since, deliver, (reason) =>
        this.#close(id, reason),
      );
      sub.stop = stopCommits;
      // The same subscription carries the contract's proposal events (created, signed, committed, withdrawn).
      const stopProposals = await this.#options.hub.subscribeProposals(
        caller,
        contractId,
        (proposal) => deliver({ proposal }),
        (reason) => this.#close(id, reason),
      );
      sub.stop = () => {
        stopCommits();
        stopProposals();
      };
    } catch (err) {
      this.#drop(id, sub);
      throw err;
    }
    // The socket closed meanwhile (or before this frame ran, which #end did not see).
    if (this.#closed) this.#drop(id, sub);
    return id;
  }

  /** Ends a subscription; false when unknown. */
  unsubscribe(id: string): boolean {
    const sub = this.#subs.get(id);
    if (!sub) return false;
    this.#drop(id, sub);
    return true;
  }

  /** Stops subscription `id` and frees its places, on this connection and among its caller's. */
  #drop(id: string, sub: Subscription): void {
    sub.stop?.();
    sub.release();
    if (this.#subs.get(id) === sub) this.#subs.delete(id);
  }

  #notify(subscription: string, event: CommitEvent | { proposal: unknown }): void {
    const sub = JSON.stringify(subscription);
    if ("proposal" in event) {
      const contract_id = this.#subs.get(subscription)?.contractId;
      const id = contract_id === undefined ? "" : `,"contract_id":${JSON.stringify(contract_id)}`;
      // The same text as serializing the whole message, with the proposal's written once.
      const proposal = proposalText(event.proposal as ProposalView);
      this.#sendText(
        eventMessage([
          `{"jsonrpc":"2.0","method":"proposal","params":{"subscription":${sub}${id},"proposal":`,
          proposal,
          "}}",
        ]),
      );
      return;
    }
    if (typeof event.commit !== "object" || typeof event.state !== "object" || event.state === null) {
      this.send({ jsonrpc: "2.0", method: "commit", params: { subscription, ...event } });
      return;
    }
    // The same text as serializing the whole message, with the shared parts written once.
    this.#sendText(
      eventMessage([
        `{"jsonrpc":"2.0","method":"commit","params":{"subscription":${sub},"contract_id":${JSON.stringify(event.contract_id)},"commit":`,
        logEntryText(event.commit),
        ',"state":',
        stateViewText(event.state),
        "}}",
      ]),
    );
  }

  /**
   * Releases the events of subscriptions `ids` held back while their `subscribe` answer was
   * pending (it has been sent now). Not every pending one: another frame's subscribe may still
   * be running, and its events must wait for its own answer (docs/api.md).
   */
  #release(ids: readonly string[]): void {
    for (const id of ids) {
      const sub = this.#subs.get(id);
      if (sub === undefined || sub.ready) continue;
      sub.ready = true;
      for (const event of sub.queue.splice(0)) this.#notify(id, event);
    }
  }

  /** The access keys this socket acts with: its own and those its subscriptions were made under. */
  #keysInUse(): Set<string> {
    const keys = new Set<string>();
    if (this.caller.accessKey !== null) keys.add(this.caller.accessKey);
    for (const sub of this.#subs.values()) if (sub.caller.accessKey !== null) keys.add(sub.caller.accessKey);
    return keys;
  }

  /**
   * A revoked key ends every subscription made under it, whichever key the socket holds now
   * (docs/api.md); if the socket still holds it, the socket becomes anonymous.
   */
  #onRevoked(accessKey: string): void {
    // Anonymous again, and budgeted by its address like any anonymous caller.
    if (this.caller.accessKey === accessKey) this.caller = { identity: null, accessKey: null, address: this.#address };
    for (const [id, sub] of [...this.#subs])
      if (sub.caller.accessKey === accessKey) this.#close(id, "access_key_revoked");
  }

  /**
   * After a grant change of `identity` on `contractId`: its subscriptions there that it may no
   * longer read end (docs/api.md). Each is checked with the caller it was made with.
   */
  async #recheck(contractId: string, identity: string): Promise<void> {
    const ids = [...this.#subs]
      .filter(([, sub]) => sub.contractId === contractId && sub.caller.identity === identity)
      .map(([id]) => id);
    if (ids.length === 0) return;
    // The hub's own read check decides; any refusal (404 for a private contract) closes them.
    const readable = await this.#options.hub.getState(this.#subs.get(ids[0]!)!.caller, contractId).then(
      () => true,
      () => false,
    );
    if (!readable) for (const id of ids) this.#close(id, "access_lost");
  }

  #close(id: string, reason: string): void {
    const sub = this.#subs.get(id);
    if (!sub) return;
    this.#drop(id, sub);
    this.send({
      jsonrpc: "2.0",
      method: "subscription_closed",
      params: { subscription: id, contract_id: sub.contractId, reason },
    });
  }
}

/** The methods of a socket: every JSON-RPC method plus authenticate, subscribe and unsubscribe. */
export const SOCKET_METHODS: Record<string, RpcMethod<SocketContext>> = {
  ...(RPC_METHODS as Record<string, RpcMethod<SocketContext>>),
  authenticate: {
    params: Type.Object({ key: Type.String(), signature: Type.String() }),
    run: async ({ session }, p) => {
      const caller = await session.authenticate(p.key, p.signature);
      return { identity: formatIdentity(Buffer.from(caller.identity!, "hex")), access_key: caller.accessKey };
    },
  },
  subscribe: {
    params: Type.Object({
      contract_id: S.ContractId,
      since: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), S.Hash])),
    }),
    run: async ({ session, subscribed }, p) => {
      const subscription = await session.subscribe(p.contract_id as string, p.since as number | string | undefined);
      // Its events are held back until the answer carrying this id is sent (see `subscribed`).
      subscribed.push(subscription);
      return { subscription };
    },
  },
  unsubscribe: {
    params: Type.Object({ subscription: Type.String() }),
    run: ({ session }, p) => {
      if (!session.unsubscribe(p.subscription as string)) {
        throw new ContractError("NOT_FOUND", "Cannot unsubscribe: no such subscription on this connection", {
          reason: "unknown_subscription",
        });
      }
      return { unsubscribed: true };
    },
  },
};
