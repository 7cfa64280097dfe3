/**
 * JSON-RPC methods (PROTOCOL.md §8) mapped onto the hub: params are the REST body plus the
 * path and query parameters by name, results are the REST response bodies. Methods marked
 * `auth` are writes and need an authenticated caller.
 */
import { type TSchema, Type } from "typebox";
import * as S from "../api/schemas.js";
import type { AccessRegistry } from "../auth/AccessRegistry.js";
import type { WireCommit } from "../contract/Commit.js";
import type { Caller, CreateContractBody, HubApi, SubmitCommitBody } from "../hub/HubApi.js";

/** What a method runs with; the WebSocket adapter adds its session. */
export interface RpcContext {
  hub: HubApi;
  registry: AccessRegistry;
  caller: Caller;
  version: string;
}

export interface RpcMethod<C extends RpcContext = RpcContext> {
  params: TSchema;
  /** True for writes: an anonymous caller gets UNAUTHORIZED. */
  auth?: boolean;
  /** True when the method may carry a push-sized body. */
  largeBody?: boolean;
  run(ctx: C, params: Record<string, unknown>): unknown;
}

type P = Record<string, unknown>;
const id = (p: P) => p.contract_id as string;
const pick = (p: P, ...keys: string[]) =>
  Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]])) as never;

const None = Type.Object({});
const ById = Type.Object({ contract_id: S.ContractId });
const Paged = Type.Object({ contract_id: S.ContractId, ...S.PageQuery.properties });

export const RPC_METHODS: Record<string, RpcMethod> = {
  getHealth: { params: None, run: ({ hub }) => hub.health() },
  getVersion: { params: None, run: ({ version }) => version },
  listContracts: {
    params: S.PageQuery,
    run: ({ hub, caller }, p) => hub.listContracts(caller, pick(p, "limit", "offset")),
  },
  createContract: {
    params: S.CreateContractBody,
    auth: true,
    run: ({ hub, caller }, p) => hub.createContract(caller, p as CreateContractBody),
  },
  getContract: { params: ById, run: ({ hub, caller }, p) => hub.getContract(caller, id(p)) },
  getContractState: { params: ById, run: ({ hub, caller }, p) => hub.getState(caller, id(p)) },
  getLog: { params: Paged, run: ({ hub, caller }, p) => hub.getLog(caller, id(p), pick(p, "limit", "offset")) },
  getCommits: { params: Paged, run: ({ hub, caller }, p) => hub.getLog(caller, id(p), pick(p, "limit", "offset")) },
  getCommit: {
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash }),
    run: ({ hub, caller }, p) => hub.getCommit(caller, id(p), p.hash as string),
  },
  submitCommit: {
    params: Type.Object({ ...S.SubmitCommitBody.properties, contract_id: S.ContractId }),
    auth: true,
    run: async ({ hub, caller }, p) => (await hub.submitCommit(caller, id(p), p as SubmitCommitBody)).result,
  },
  push: {
    params: Type.Object({ contract_id: S.ContractId, ...S.PushBody.properties }),
    auth: true,
    largeBody: true,
    run: ({ hub, caller }, p) => hub.push(caller, id(p), { commits: p.commits as WireCommit[] }),
  },
  pull: {
    params: Type.Object({ contract_id: S.ContractId, ...S.PullQuery.properties }),
    run: ({ hub, caller }, p) => hub.pull(caller, id(p), pick(p, "since", "limit")),
  },
  propose: {
    params: Type.Object({ contract_id: S.ContractId, ...S.ProposeBody.properties }),
    auth: true,
    run: async ({ hub, caller }, p) => {
      const { created: _, ...result } = await hub.propose(caller, id(p), { commit: p.commit });
      return result;
    },
  },
  listProposals: {
    params: Type.Object({ contract_id: S.ContractId, ...S.ProposalQuery.properties }),
    run: ({ hub, caller }, p) => hub.listProposals(caller, id(p), pick(p, "status", "limit", "offset")),
  },
  getProposal: {
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash }),
    run: ({ hub, caller }, p) => hub.getProposal(caller, id(p), p.hash as string),
  },
  signProposal: {
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash, ...S.SignProposalBody.properties }),
    auth: true,
    run: ({ hub, caller }, p) => hub.signProposal(caller, id(p), p.hash as string, { signatures: p.signatures }),
  },
  withdrawProposal: {
    params: Type.Object({ contract_id: S.ContractId, hash: S.Hash }),
    auth: true,
    run: ({ hub, caller }, p) => hub.withdrawProposal(caller, id(p), p.hash as string),
  },
  synthesize: {
    params: S.SynthesizeBody,
    run: ({ hub, caller }, p) => hub.synthesize(caller, p),
  },
  listTemplates: { params: None, run: ({ hub }) => hub.listTemplates() },
  getTemplate: {
    params: Type.Object({ id: S.TemplateParams.properties.id }),
    run: ({ hub }, p) => hub.getTemplate(p.id as string),
  },
  getAssets: { params: ById, run: ({ hub, caller }, p) => hub.getAssets(caller, id(p)) },
  getCheckpoint: { params: None, run: ({ hub }) => hub.getCheckpoint() },
  getCheckpointKey: { params: None, run: ({ hub }) => hub.getCheckpointKey() },
  getInclusionProof: {
    params: S.InclusionQuery,
    run: ({ hub, caller }, p) => hub.getInclusionProof(caller, pick(p, "hash", "size")),
  },
  getConsistencyProof: {
    params: S.ConsistencyQuery,
    run: ({ hub }, p) => hub.getConsistencyProof(pick(p, "from", "to")),
  },
  register: { params: S.RegisterBody, run: ({ registry }, p) => registry.register(p) },
  grant: {
    params: Type.Object({ contract_id: S.ContractId, ...S.GrantBody.properties }),
    auth: true,
    run: ({ hub, caller }, p) => hub.grant(caller, id(p), { identity: p.identity as string, role: p.role as string }),
  },
  getAccess: { params: None, auth: true, run: ({ registry, caller }) => registry.list(caller) },
  revokeAccess: { params: S.RevokeBody, run: ({ registry, caller }, p) => registry.revoke(caller, p) },
};
