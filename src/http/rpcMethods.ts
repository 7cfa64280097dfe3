/**
 * JSON-RPC methods (docs/api.md) mapped onto the hub: params are the REST body plus the
 * path and query parameters by name, results are the REST response bodies. Methods marked
 * `auth` are writes and need an authenticated caller.
 */
import { type Static, type TSchema, Type } from "typebox";
import * as S from "../api/schemas.js";
import type { AccessRegistry } from "../auth/AccessRegistry.js";
import type { Caller, HubApi } from "../hub/HubApi.js";
import { rpcProposalAnswer } from "./bigProposalAnswer.js";
import { JsonText } from "./JsonText.js";

/** What a method runs with; the WebSocket adapter adds its session. */
export interface RpcContext {
  hub: HubApi;
  registry: AccessRegistry;
  caller: Caller;
  version: string;
  /**
   * Aborted when the caller is gone (the HTTP connection closed before the answer, or the
   * socket closed); absent where nobody can go away.
   */
  readonly signal?: AbortSignal;
  /**
   * Told the wait (seconds) of each refusal that carries one (RATE_LIMITED, UNAVAILABLE with
   * `details.retry_after`), so a transport that can say it does: JSON-RPC over HTTP sends the
   * longest as `Retry-After`, as REST does with its 429 and 503.
   */
  readonly retryAfter?: (seconds: number) => void;
  /**
   * Spends one of the caller's address's new identities, or throws RATE_LIMITED
   * (`registration_limit`); absent where no address is known (nothing is limited then).
   */
  readonly admitNewIdentity?: () => void;
}

export interface RpcMethod<C extends RpcContext = RpcContext, P = Record<string, unknown>> {
  params: TSchema;
  /** True for writes: an anonymous caller gets UNAUTHORIZED. */
  auth?: boolean;
  /** True when the method may carry a push-sized body. */
  largeBody?: boolean;
  run(ctx: C, params: P): unknown;
}

/**
 * A method typed by its params schema: `run` receives the params as the schema describes
 * them (the dispatcher validated them against it), so they reach the core with its own input
 * types, no casts.
 */
export function rpcMethod<T extends TSchema, C extends RpcContext = RpcContext>(
  m: RpcMethod<C, Static<T>> & { params: T },
): RpcMethod<C> {
  return m as unknown as RpcMethod<C>;
}

const None = Type.Object({});
const ById = Type.Object({ contract_id: S.ContractId });
const Paged = Type.Object({ contract_id: S.ContractId, ...S.PageQuery.properties });

export const RPC_METHODS: Record<string, RpcMethod> = {
  getHealth: rpcMethod({ params: None, run: ({ hub }) => hub.health() }),
  getVersion: rpcMethod({ params: None, run: ({ version }) => version }),
  listContracts: rpcMethod({
    params: S.ListContractsQuery,
    run: ({ hub, caller }, { include, limit, offset }) => hub.listContracts(caller, { include, limit, offset }),
  }),
  createContract: rpcMethod({
    params: S.CreateContractBody,
    auth: true,
    run: ({ hub, caller }, p) => hub.createContract(caller, p),
  }),
  getContract: rpcMethod({ params: ById, run: ({ hub, caller }, p) => hub.getContract(caller, p.contract_id) }),
  getContractState: rpcMethod({ params: ById, run: ({ hub, caller }, p) => hub.getState(caller, p.contract_id) }),
  // A page of the log is up to about 8 MiB: serialized in pieces (HubApi.getLogText), not in one go.
  getLog: rpcMethod({
    params: Paged,
    run: async ({ hub, caller }, { contract_id, limit, offset }) =>
      JsonText.from(await hub.getLogText(caller, contract_id, { limit, offset })),
  }),
  getCommits: rpcMethod({
    params: Paged,
    run: async ({ hub, caller }, { contract_id, limit, offset }) =>
      JsonText.from(await hub.getLogText(caller, contract_id, { limit, offset })),
  }),
  getCommit: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash }),
    run: ({ hub, caller }, p) => hub.getCommit(caller, p.contract_id, p.hash),
  }),
  submitCommit: rpcMethod({
    params: Type.Object({ ...S.SubmitCommitBody.properties, contract_id: S.ContractId }),
    auth: true,
    run: async ({ hub, caller }, p) => (await hub.submitCommit(caller, p.contract_id, p)).result,
  }),
  push: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.PushBody.properties }),
    auth: true,
    largeBody: true,
    run: ({ hub, caller }, p) => hub.push(caller, p.contract_id, { commits: p.commits }),
  }),
  pull: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.PullQuery.properties }),
    run: ({ hub, caller }, { contract_id, since, limit }) => hub.pull(caller, contract_id, { since, limit }),
  }),
  // Proposals holding big values are answered in text written in slices (bigProposalAnswer.ts).
  propose: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.ProposeBody.properties }),
    auth: true,
    run: async ({ hub, caller }, p) => {
      const { created: _, ...result } = await hub.propose(caller, p.contract_id, { commit: p.commit });
      return rpcProposalAnswer(result);
    },
  }),
  listProposals: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.ProposalQuery.properties }),
    run: async ({ hub, caller }, { contract_id, ...q }) =>
      rpcProposalAnswer(await hub.listProposals(caller, contract_id, q)),
  }),
  getProposal: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash }),
    run: async ({ hub, caller }, p) => rpcProposalAnswer(await hub.getProposal(caller, p.contract_id, p.hash)),
  }),
  signProposal: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash, ...S.SignProposalBody.properties }),
    auth: true,
    run: async ({ hub, caller }, p) =>
      rpcProposalAnswer(await hub.signProposal(caller, p.contract_id, p.hash, { signatures: p.signatures })),
  }),
  withdrawProposal: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash }),
    auth: true,
    run: async ({ hub, caller }, p) => rpcProposalAnswer(await hub.withdrawProposal(caller, p.contract_id, p.hash)),
  }),
  synthesize: rpcMethod({
    params: S.SynthesizeBody,
    // A caller that hangs up cancels the language model's call (docs/synthesis.md).
    run: ({ hub, caller, signal }, p) => hub.synthesize(caller, p, signal === undefined ? {} : { signal }),
  }),
  listTemplates: rpcMethod({ params: None, run: ({ hub }) => hub.listTemplates() }),
  getTemplate: rpcMethod({
    params: Type.Object({ id: S.TemplateParams.properties.id }),
    run: ({ hub }, p) => hub.getTemplate(p.id),
  }),
  getAssets: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.PageQuery.properties }),
    run: ({ hub, caller }, { contract_id, ...q }) => hub.getAssets(caller, contract_id, q),
  }),
  listIncomingSends: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.IncomingQuery.properties }),
    run: ({ hub, caller }, { contract_id, ...q }) => hub.listIncomingSends(caller, contract_id, q),
  }),
  getCheckpoint: rpcMethod({ params: None, run: ({ hub }) => hub.getCheckpoint() }),
  getCheckpointKey: rpcMethod({ params: None, run: ({ hub }) => hub.getCheckpointKey() }),
  getInclusionProof: rpcMethod({
    params: S.InclusionQuery,
    run: ({ hub, caller }, { hash, size }) => hub.getInclusionProof(caller, { hash, size }),
  }),
  getConsistencyProof: rpcMethod({
    params: S.ConsistencyQuery,
    run: ({ hub }, { from, to }) => hub.getConsistencyProof({ from, to }),
  }),
  register: rpcMethod({
    params: S.RegisterBody,
    run: ({ registry, admitNewIdentity }, p) => registry.register(p, admitNewIdentity),
  }),
  grant: rpcMethod({
    params: Type.Object({ contract_id: S.ContractId, ...S.GrantBody.properties }),
    auth: true,
    run: ({ hub, caller }, p) => hub.grant(caller, p.contract_id, { identity: p.identity, role: p.role }),
  }),
  getAccess: rpcMethod({ params: None, auth: true, run: ({ registry, caller }) => registry.list(caller) }),
  revokeAccess: rpcMethod({ params: S.RevokeBody, run: ({ registry, caller }, p) => registry.revoke(caller, p) }),
};
