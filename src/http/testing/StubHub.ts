/**
 * A recording stand-in for the hub core, for adapter tests: it answers fixed, well-formed
 * bodies, throws NOT_FOUND for the contract id "missing", and throws a plain Error (an
 * unexpected failure) for "explode", so tests can check translation without the real Hub.
 */
import type { LogEntry, PulledCommit } from "../../contract/Commit.js";
import { ContractError } from "../../contract/ContractError.js";
import type { Caller, CommitEvent, PullResult, StateView } from "../../hub/HubApi.js";
import type { HubServices } from "../HubServices.js";

export const STUB_HASH = "a".repeat(64);

const STATE: StateView = {
  current_state: "init",
  current_states: ["init"],
  valid_actions: [],
  commit_count: 1,
  head: STUB_HASH,
};

function entry(index: number): LogEntry {
  return {
    index,
    hash: index.toString(16).padStart(64, "0"),
    method: index === 0 ? "genesis" : "post",
    signers: [],
    timestamp: 1,
  };
}

function pulled(index: number): PulledCommit {
  const hash = index.toString(16).padStart(64, "0");
  return { hash, parent: null, data: [], head: { parent: null, signatures: {} }, body: [], timestamp: 1 };
}

/** One recorded call: operation name, caller and arguments. */
export interface StubCall {
  op: string;
  caller: Caller | null;
  args: unknown[];
}

export class StubHub implements HubServices {
  readonly calls: StubCall[] = [];
  /** Number of commits `pullStream` yields. */
  pullSize = 3;
  readonly listeners = new Map<string, (e: CommitEvent) => void>();

  #check(op: string, caller: Caller | null, id: string | null, ...args: unknown[]): void {
    this.calls.push({ op, caller, args: id === null ? args : [id, ...args] });
    if (id === "missing")
      throw new ContractError("NOT_FOUND", `Contract ${id} not found`, { reason: "unknown_contract" });
    if (id === "explode") throw new Error("secret internal detail");
  }

  /** The last recorded call of `op`. */
  last(op: string): StubCall | undefined {
    return this.calls.filter((c) => c.op === op).at(-1);
  }

  health() {
    return { status: "ok", version: "0.1.0" };
  }
  async listContracts(caller: Caller, q: { limit?: number; offset?: number }) {
    this.#check("listContracts", caller, null, q);
    return { contracts: [], total: 0 };
  }
  async createContract(caller: Caller, body: object) {
    this.#check("createContract", caller, (body as { contract_id?: string }).contract_id ?? null, body);
    return { contract_id: "c_1", created_at: 1 };
  }
  async getContract(caller: Caller, id: string) {
    this.#check("getContract", caller, id);
    return { contract_id: id, model: null, rules: [], state: STATE, created_at: 1 };
  }
  async getState(caller: Caller, id: string) {
    this.#check("getState", caller, id);
    return STATE;
  }
  async getLog(caller: Caller, id: string, q: { limit?: number; offset?: number }) {
    this.#check("getLog", caller, id, q);
    return { commits: [entry(0)], total: 1 };
  }
  async getCommit(caller: Caller, id: string, hash: string) {
    this.#check("getCommit", caller, id, hash);
    return entry(0);
  }
  async submitCommit(caller: Caller, id: string, body: object) {
    this.#check("submitCommit", caller, id, body);
    const created = (body as { parent?: string }).parent !== STUB_HASH;
    return { result: { commit_hash: STUB_HASH, index: 1, new_state: STATE, timestamp: 1 }, created };
  }
  async push(caller: Caller, id: string, body: object) {
    this.#check("push", caller, id, body);
    return { pushed: (body as { commits: unknown[] }).commits.length, head: STUB_HASH };
  }
  async pull(caller: Caller, id: string, q: { since?: string; limit?: number }): Promise<PullResult> {
    this.#check("pull", caller, id, q);
    return { contract_id: id, head: STUB_HASH, commits: [pulled(0)] };
  }
  async pullStream(caller: Caller, id: string, q: { since?: string; limit?: number }) {
    this.#check("pullStream", caller, id, q);
    const n = q.limit === undefined ? this.pullSize : Math.min(q.limit, this.pullSize);
    async function* commits() {
      for (let i = 0; i < n; i++) yield pulled(i);
    }
    return { contract_id: id, head: STUB_HASH, commits: commits(), hasMore: () => n < this.pullSize };
  }
  async subscribe(caller: Caller, id: string, since: number | string | undefined, listener: (e: CommitEvent) => void) {
    this.#check("subscribe", caller, id, since);
    // Replays one event synchronously, as a hub catching a client up would.
    listener({ contract_id: id, commit: entry(0), state: STATE });
    this.listeners.set(id, listener);
    return () => this.listeners.delete(id);
  }
  async grant(caller: Caller, id: string, body: { identity: string; role: string }) {
    this.#check("grant", caller, id, body);
    return { contract_id: id, identity: body.identity, role: body.role };
  }
}
