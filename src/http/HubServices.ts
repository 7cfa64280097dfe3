/**
 * What the adapters call: the HubApi, plus operations the hub core may offer that are not
 * (yet) part of HubApi. An adapter calls an optional one only through `requireOperation`,
 * so a hub without it answers 503 UNAVAILABLE instead of crashing.
 */
import { ContractError } from "../contract/ContractError.js";
import type { Caller, HubApi } from "../hub/HubApi.js";

export interface HubExtras {
  grant?(caller: Caller, id: string, body: { identity: string; role: string }): Promise<unknown>;
  getAssets?(caller: Caller, id: string): Promise<unknown>;
  synthesize?(caller: Caller, body: Record<string, unknown>): Promise<unknown>;
  listTemplates?(): unknown;
  getTemplate?(id: string): unknown;
  /** Tells sessions that an identity's grant on a contract changed, so subscribers re-check read access. */
  onAccessChange?(listener: (contractId: string, identity: string) => void): () => void;
}

export type HubServices = HubApi & HubExtras;

/** The optional operation `name` of the hub, or a 503 naming it. */
export function requireOperation<K extends keyof HubExtras>(hub: HubServices, name: K): NonNullable<HubExtras[K]> {
  const op = hub[name];
  if (typeof op !== "function") {
    throw new ContractError("UNAVAILABLE", `This hub does not offer the ${name} operation`, {
      reason: "operation_unavailable",
      operation: name,
    });
  }
  return op.bind(hub) as NonNullable<HubExtras[K]>;
}
