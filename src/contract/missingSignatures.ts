/**
 * What still blocks a proposal: the signature predicates of the cheapest transition that the
 * commit could take once enough parties sign, and whose signatures they lack.
 */
import type { Property } from "../lang/ast.js";
import type { LtsTransition } from "../lang/Lts.js";
import { printProperty } from "../lang/printer.js";
import { keysUnder, pathCovers } from "./builtinPredicates.js";
import type { ContractState } from "./ContractState.js";
import { IDENTITY_PREFIX, isLowerHex } from "./hex.js";
import {
  type CommitFacts,
  propertyHolds,
  SIGNATURE_PREDICATES,
  sensitiveNeeds,
  TRANSITIONS_PER_TICK,
  transitionEnabled,
} from "./step.js";

/** One unmet signature predicate: who could still sign (state paths, or `ed25519:<hex>` for a `.json` list) and how many more must. */
export interface MissingSignature {
  predicate: string;
  signers: string[];
  needed: number;
}

/** The parties a directory argument names: each `.id` path under it (sorted), or each key of a `.json` list, with its key. */
function members(data: ReadonlyMap<string, unknown>, dir: string): Array<{ name: string; key: string }> {
  if (dir.endsWith(".json")) return keysUnder(data, dir).map((key) => ({ name: IDENTITY_PREFIX + key, key }));
  const found: Array<{ name: string; key: string }> = [];
  for (const [path, value] of data) {
    if (path.endsWith(".id") && pathCovers(dir, path) && isLowerHex(value, 32)) found.push({ name: path, key: value });
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The transitions leaving the contract's current states, in model order (none without a model). */
function leaving(state: ContractState): LtsTransition[] {
  if (state.model === null) return [];
  const { lts } = state.model;
  const indices: number[] = [];
  for (const s of state.current) {
    for (let i = lts.succStart[s]!; i < lts.succStart[s + 1]!; i++) indices.push(lts.succEdge[i]!);
  }
  return indices.sort((a, b) => a - b).map((i) => lts.transitions[i]!);
}

/** The entry for one signature predicate that does not hold yet, given the keys that signed. */
function missingFor(p: Property, data: ReadonlyMap<string, unknown>, signers: ReadonlySet<string>): MissingSignature {
  const args = p.args ?? [];
  const predicate = printProperty(p);
  if (p.name === "signed_by") return { predicate, signers: [args[0]!], needed: 1 };
  const dir = p.name === "threshold" ? args[1]! : args[0]!;
  const all = members(data, dir);
  const signedKeys = new Set(all.filter((m) => signers.has(m.key)).map((m) => m.key));
  const unsigned = all.filter((m) => !signedKeys.has(m.key));
  const unsignedKeys = new Set(unsigned.map((m) => m.key)).size;
  const needed =
    p.name === "threshold" ? Number(args[0]) - signedKeys.size : p.name === "any_signed" ? 1 : unsignedKeys;
  return { predicate, signers: unsigned.map((m) => m.name), needed };
}

/**
 * `missing` of a proposal whose facts are `actual` (the signatures collected so far) and
 * `signable` (the same commit judged with `optimisticSignatures`): among the transitions
 * leaving the current states that the commit could take, the one needing the fewest further
 * signatures, ties broken by model order. Empty when some transition is already enabled, or
 * when no transition could be (the caller reports that as a validation failure).
 */
export async function missingSignatures(
  state: ContractState,
  actual: CommitFacts,
  signable: CommitFacts,
): Promise<MissingSignature[]> {
  const needs = sensitiveNeeds(actual.input.ops, actual.input.data);
  let best: { cost: number; missing: MissingSignature[] } | null = null;
  let judged = 0;
  for (const t of leaving(state)) {
    // Every read of a proposal recomputes this: a wide model is judged in slices (see step).
    if (++judged % TRANSITIONS_PER_TICK === 0) await actual.tick?.();
    if (!(await transitionEnabled(t, signable, needs))) continue;
    const missing: MissingSignature[] = [];
    for (const p of t.label) {
      if (p.sign !== "+" || !SIGNATURE_PREDICATES.has(p.name)) continue;
      if ((await propertyHolds(p, actual)).valid) continue;
      missing.push(missingFor(p, actual.input.data, actual.input.signers));
    }
    const cost = missing.reduce((sum, m) => sum + m.needed, 0);
    if (best === null || cost < best.cost) best = { cost, missing };
    if (cost === 0) break;
  }
  return best?.missing ?? [];
}

/**
 * The keys whose signatures a proposal could still count: every key a required (`+`)
 * signature predicate names (the key at a `signed_by` path, the members of a `threshold`,
 * `any_signed` or `all_signed` directory or `.json` list) on a transition that the commit
 * whose facts are `signable` (judged with `optimisticSignatures`, on every signature it would
 * hold) could take. A forbidden (`-`) signature predicate sees the signatures present, so a
 * signature that disables every transition leaves nobody countable. The hub refuses to store
 * a signature of any other key: it could never complete the commit, only fill its signatures.
 */
export async function countableSigners(state: ContractState, signable: CommitFacts): Promise<Set<string>> {
  const { data, ops } = signable.input;
  const needs = sensitiveNeeds(ops, data);
  const keys = new Set<string>();
  let judged = 0;
  for (const t of leaving(state)) {
    if (++judged % TRANSITIONS_PER_TICK === 0) await signable.tick?.();
    if (!(await transitionEnabled(t, signable, needs))) continue;
    for (const p of t.label) {
      if (p.sign !== "+" || !SIGNATURE_PREDICATES.has(p.name)) continue;
      const args = p.args ?? [];
      if (p.name === "signed_by") {
        const key = data.get(args[0]!);
        if (isLowerHex(key, 32)) keys.add(key);
        continue;
      }
      for (const m of members(data, p.name === "threshold" ? args[1]! : args[0]!)) keys.add(m.key);
    }
  }
  return keys;
}
