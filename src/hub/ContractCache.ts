import type { ContractState } from "../contract/ContractState.js";

/**
 * LRU cache of contract states, bounded by count. A state only moves forward: a slow
 * reader's replay that finishes after a write advanced the cache never replaces the newer
 * state with its older one.
 */
export class ContractCache {
  private readonly entries = new Map<string, ContractState>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("cache capacity must be a positive integer");
  }

  /** The cached state (marked most recently used), or undefined. */
  get(id: string): ContractState | undefined {
    const state = this.entries.get(id);
    if (state !== undefined) {
      this.entries.delete(id);
      this.entries.set(id, state);
    }
    return state;
  }

  /** Caches `state` unless a longer state of the contract is cached; evicts the least recently used. */
  set(state: ContractState): void {
    const existing = this.entries.get(state.contractId);
    if (existing !== undefined && existing !== state && existing.length > state.length) return;
    this.entries.delete(state.contractId);
    this.entries.set(state.contractId, state);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Forgets a contract (e.g. after the store reported that another process moved its head). */
  delete(id: string): void {
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
