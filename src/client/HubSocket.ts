/**
 * A WebSocket connection to a hub (docs/api.md): waits for the hello, authenticates
 * with an access key when given one, makes JSON-RPC calls and routes `commit` notifications
 * to their subscription's handler.
 */
import { WebSocket } from "ws";
import type { CommitEvent, ProposalView } from "../api/responses.js";
import { socketAuthParams } from "../auth/signRequest.js";
import { ContractError } from "../contract/ContractError.js";
import { isErrorCode } from "../contract/errorCodes.js";

/** A commit notification as delivered to a handler. */
export type CommitNotification = CommitEvent & { subscription: string };

/** A proposal notification: a proposal of the subscribed contract was created or changed. */
export interface ProposalNotification {
  subscription: string;
  contract_id: string;
  proposal: ProposalView;
}

export class HubSocket {
  readonly #ws: WebSocket;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  readonly #handlers = new Map<string, (event: CommitNotification) => void>();
  readonly #closedHandlers = new Map<string, (reason: string) => void>();
  /** Events that arrived before their handler: ws may deliver the answer and the first events in one tick. */
  readonly #early = new Map<string, CommitNotification[]>();
  readonly #proposalHandlers = new Map<string, (event: ProposalNotification) => void>();
  readonly #earlyProposals = new Map<string, ProposalNotification[]>();
  #next = 0;
  challenge = "";
  version = "";

  private constructor(ws: WebSocket) {
    this.#ws = ws;
  }

  /** Opens `<base>/ws`, waits for the hello and authenticates with `accessSeed` if given. */
  static async connect(baseUrl: string, accessSeed?: Uint8Array): Promise<HubSocket> {
    const url = `${baseUrl.replace(/^http/, "ws").replace(/\/$/, "")}/ws`;
    const ws = new WebSocket(url);
    const socket = new HubSocket(ws);
    const hello = new Promise<void>((resolve, reject) => {
      ws.once("error", reject);
      ws.once("close", () => reject(new ContractError("UNAVAILABLE", `WebSocket to ${url} closed before its hello`)));
      socket.#onHello = resolve;
    });
    ws.on("message", (data) => socket.#receive(String(data)));
    ws.on("close", () => {
      for (const p of socket.#pending.values()) p.reject(new ContractError("UNAVAILABLE", "WebSocket closed"));
      socket.#pending.clear();
    });
    await hello;
    if (accessSeed) await socket.call("authenticate", socketAuthParams(accessSeed, socket.challenge));
    return socket;
  }

  #onHello: () => void = () => {};

  /** Calls a JSON-RPC method over the socket; a JSON-RPC error rejects as a ContractError. */
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T> {
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }));
    });
  }

  /** Subscribes to a contract's commits (from log index or hash `since`); returns the subscription id. */
  async subscribe(
    contractId: string,
    onCommit: (event: CommitNotification) => void,
    options: {
      since?: number | string;
      onClosed?: (reason: string) => void;
      /** Called for each proposal of the contract created or changed after subscribing. */
      onProposal?: (event: ProposalNotification) => void;
    } = {},
  ): Promise<string> {
    const params = { contract_id: contractId, ...(options.since !== undefined ? { since: options.since } : {}) };
    const { subscription } = await this.call<{ subscription: string }>("subscribe", params);
    this.#handlers.set(subscription, onCommit);
    if (options.onClosed) this.#closedHandlers.set(subscription, options.onClosed);
    for (const event of this.#early.get(subscription) ?? []) onCommit(event);
    this.#early.delete(subscription);
    if (options.onProposal) {
      this.#proposalHandlers.set(subscription, options.onProposal);
      for (const event of this.#earlyProposals.get(subscription) ?? []) options.onProposal(event);
    }
    this.#earlyProposals.delete(subscription);
    return subscription;
  }

  /** Ends a subscription. */
  async unsubscribe(subscription: string): Promise<void> {
    this.#handlers.delete(subscription);
    this.#closedHandlers.delete(subscription);
    this.#proposalHandlers.delete(subscription);
    await this.call("unsubscribe", { subscription });
    this.#early.delete(subscription);
  }

  /** Closes the connection. */
  close(): void {
    this.#ws.close();
  }

  #receive(text: string): void {
    const msg = JSON.parse(text) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: { message: string; data?: { code?: string; details?: Record<string, unknown> } };
    };
    if (msg.method === "hello") {
      this.challenge = String(msg.params?.challenge ?? "");
      this.version = String(msg.params?.version ?? "");
      this.#onHello();
    } else if (msg.method === "commit") {
      const p = msg.params as unknown as CommitNotification;
      const handler = this.#handlers.get(p.subscription);
      if (handler) handler(p);
      else this.#early.set(p.subscription, [...(this.#early.get(p.subscription) ?? []), p]);
    } else if (msg.method === "proposal") {
      const p = msg.params as unknown as ProposalNotification;
      const handler = this.#proposalHandlers.get(p.subscription);
      if (handler) handler(p);
      else if (!this.#handlers.has(p.subscription))
        this.#earlyProposals.set(p.subscription, [...(this.#earlyProposals.get(p.subscription) ?? []), p]);
    } else if (msg.method === "subscription_closed") {
      const sub = String(msg.params?.subscription);
      this.#handlers.delete(sub);
      this.#closedHandlers.get(sub)?.(String(msg.params?.reason));
      this.#closedHandlers.delete(sub);
    } else if (typeof msg.id === "number") {
      const p = this.#pending.get(msg.id);
      this.#pending.delete(msg.id);
      if (!p) return;
      if (msg.error) {
        const code = msg.error.data?.code;
        p.reject(new ContractError(isErrorCode(code) ? code : "INTERNAL", msg.error.message, msg.error.data?.details));
      } else p.resolve(msg.result);
    }
  }
}
