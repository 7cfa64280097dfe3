/**
 * The one REST route table (docs/api.md): method, path, schemas, who may call,
 * and the hub operation it translates to. Nothing here decides validity; the hub does. Each
 * route's handler sees its params, query and body typed by the route's own schemas (their
 * `Static`), which are the core's input types: no casts between the two.
 */
import type { Static, TSchema } from "typebox";
import * as S from "../api/schemas.js";
import type { AccessRegistry } from "../auth/AccessRegistry.js";
import { ContractError } from "../contract/ContractError.js";
import type { Caller, HubApi } from "../hub/HubApi.js";
import { bigProposalPieces, type ProposalAnswer } from "./bigProposalAnswer.js";
import type { AuthMode } from "./createBaseApp.js";
import { logPageResponse } from "./logPageResponse.js";
import { pullResponse } from "./pullResponse.js";

/**
 * A proposal answer: a big one (bigProposalAnswer.ts) streamed in pieces written in slices,
 * with the content type fastify gives the JSON it serializes.
 */
function proposalAnswer(status: number, answer: ProposalAnswer): Answer {
  const pieces = bigProposalPieces(answer);
  if (pieces === undefined) return new Answer(status, answer);
  return new Answer(status, logPageResponse(pieces), "application/json; charset=utf-8");
}

/** A response whose status is decided per request. */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** Content type, when not JSON. */
    readonly type?: string,
  ) {}
}

export interface RouteSchemas {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: TSchema;
}

/** A part's value as its schema describes it (an empty object when the route has no such part). */
type Part<T> = T extends TSchema ? Static<T> : Record<string, never>;

export interface RouteContext<R extends RouteSchemas = RouteSchemas> {
  hub: HubApi;
  registry: AccessRegistry;
  caller: Caller;
  params: Part<R["params"]>;
  query: Part<R["querystring"]>;
  body: Part<R["body"]>;
  /** Aborted when the client's connection closes before the answer (made when first read). */
  readonly signal: AbortSignal;
  /** Spends one of the caller's address's new identities, or throws RATE_LIMITED (`registration_limit`). */
  admitNewIdentity?: () => void;
}

export interface RestRoute<R extends RouteSchemas = RouteSchemas> {
  method: "GET" | "POST" | "DELETE";
  url: string;
  summary: string;
  auth: AuthMode;
  /** Success status (200 unless told; `Answer` overrides it). */
  status?: number;
  /** Other success statuses an `Answer` may give, documented in OpenAPI with the same body. */
  alsoAnswers?: readonly number[];
  /** Push bodies may be larger than the general limit. */
  largeBody?: boolean;
  /**
   * The request's nonce is stored by the transaction of the append it causes (one durable
   * write per request) instead of before the handler runs; see spendingNonce.
   */
  nonceInAppend?: boolean;
  schema: R;
  run(ctx: RouteContext<R>): Promise<unknown> | unknown;
}

/**
 * A route of the table, typed by its own schemas. The handler receives what fastify validated
 * against those schemas, so this is the one place the static type is taken on trust.
 */
function route<R extends RouteSchemas>(r: RestRoute<R>): RestRoute {
  return r as unknown as RestRoute;
}

export const REST_ROUTES: readonly RestRoute[] = [
  route({
    method: "GET",
    url: "/health",
    summary: "Hub status and version (503 degraded during a storage fault)",
    auth: "none",
    schema: { response: S.Responses.health },
    run: async ({ hub }) => {
      const health = await hub.health();
      return health.status === "ok" ? health : new Answer(503, health);
    },
  }),
  route({
    method: "GET",
    url: "/contracts",
    summary: "Contracts visible to the caller",
    auth: "optional",
    schema: { querystring: S.ListContractsQuery, response: S.Responses.contracts },
    run: ({ hub, caller, query }) => hub.listContracts(caller, query),
  }),
  route({
    method: "POST",
    url: "/contracts",
    summary: "Create a contract (model and rules, or a template with params)",
    auth: "required",
    status: 201,
    schema: { body: S.CreateContractBody, response: S.Responses.created },
    run: ({ hub, caller, body }) => hub.createContract(caller, body),
  }),
  route({
    method: "POST",
    url: "/contracts/synthesize",
    summary: "Synthesize a model, rules and protections from a description",
    auth: "optional",
    schema: { body: S.SynthesizeBody, response: S.Responses.any },
    // A client that hangs up cancels the language model's call (docs/synthesis.md).
    run: ({ hub, caller, body, signal }) => hub.synthesize(caller, body, { signal }),
  }),
  route({
    method: "GET",
    url: "/contracts/:id",
    summary: "Contract metadata, model, rules and state",
    auth: "optional",
    schema: { params: S.IdParams, response: S.Responses.contract },
    run: ({ hub, caller, params }) => hub.getContract(caller, params.id),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/state",
    summary: "Current state, valid actions and head",
    auth: "optional",
    schema: { params: S.IdParams, response: S.Responses.state },
    run: ({ hub, caller, params }) => hub.getState(caller, params.id),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/log",
    summary: "Log entries, oldest first",
    auth: "optional",
    schema: { params: S.IdParams, querystring: S.PageQuery, response: S.Responses.log },
    // Streamed (logPageResponse.ts), with the content type fastify gives the JSON it serializes.
    run: async ({ hub, caller, params, query }) =>
      new Answer(
        200,
        logPageResponse(await hub.getLogText(caller, params.id, query)),
        "application/json; charset=utf-8",
      ),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/commits",
    summary: "Commits as log entries (same as the log)",
    auth: "optional",
    schema: { params: S.IdParams, querystring: S.PageQuery, response: S.Responses.log },
    // Streamed (logPageResponse.ts), with the content type fastify gives the JSON it serializes.
    run: async ({ hub, caller, params, query }) =>
      new Answer(
        200,
        logPageResponse(await hub.getLogText(caller, params.id, query)),
        "application/json; charset=utf-8",
      ),
  }),
  route({
    method: "POST",
    url: "/contracts/:id/commits",
    summary: "Submit one commit (fields, or a client-built {commit})",
    auth: "required",
    nonceInAppend: true,
    status: 201,
    // An idempotent re-send of the head answers 200 with the stored commit.
    alsoAnswers: [200],
    schema: { params: S.IdParams, body: S.SubmitCommitBody, response: S.Responses.submitted },
    run: async ({ hub, caller, params, body }) => {
      // The field body names its contract (the one field that is not optional), as the
      // JSON-RPC params do; a {commit} carries its contract inside what it hashes.
      if (body.commit === undefined && body.contract_id === undefined) {
        throw new ContractError("INVALID_REQUEST", "Invalid request: body/contract_id is required in a field body", {
          reason: "schema",
          field: "body/contract_id",
          keyword: "required",
        });
      }
      const { result, created } = await hub.submitCommit(caller, params.id, body);
      return new Answer(created ? 201 : 200, result);
    },
  }),
  route({
    method: "GET",
    url: "/contracts/:id/commits/:hash",
    summary: "One commit's log entry",
    auth: "optional",
    schema: { params: S.CommitParams, response: S.Responses.logEntry },
    run: ({ hub, caller, params }) => hub.getCommit(caller, params.id, params.hash!),
  }),
  route({
    method: "POST",
    url: "/contracts/:id/push",
    summary: "Push commits atomically (creates the contract from a genesis)",
    auth: "required",
    nonceInAppend: true,
    largeBody: true,
    schema: { params: S.IdParams, body: S.PushBody, response: S.Responses.pushed },
    run: ({ hub, caller, params, body }) => hub.push(caller, params.id, body),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/pull",
    summary: "Commits after `since` (all without it), streamed",
    auth: "optional",
    schema: { params: S.IdParams, querystring: S.PullQuery, response: S.Responses.pulled },
    run: async ({ hub, caller, params, query }) => {
      const q = {
        ...(query.since !== undefined ? { since: String(query.since) } : {}),
        ...(query.limit !== undefined ? { limit: Number(query.limit) } : {}),
      };
      return pullResponse(await hub.pullStream(caller, params.id, q), q.limit !== undefined);
    },
  }),
  route({
    method: "POST",
    url: "/contracts/:id/proposals",
    summary: "Propose a commit for others to co-sign (appended at once when already complete)",
    auth: "required",
    status: 201,
    // Re-proposing an open or committed proposal's hash answers 200 with it.
    alsoAnswers: [200],
    schema: { params: S.IdParams, body: S.ProposeBody, response: S.Responses.proposal },
    run: async ({ hub, caller, params, body }) => {
      const { created, ...result } = await hub.propose(caller, params.id!, body);
      return proposalAnswer(created ? 201 : 200, result);
    },
  }),
  route({
    method: "GET",
    url: "/contracts/:id/proposals",
    summary: "Proposals of one status (default open), newest first",
    auth: "optional",
    schema: { params: S.IdParams, querystring: S.ProposalQuery, response: S.Responses.proposals },
    run: async ({ hub, caller, params, query }) =>
      proposalAnswer(200, await hub.listProposals(caller, params.id!, query)),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/proposals/:hash",
    summary: "One proposal, with the signatures it still misses",
    auth: "optional",
    schema: { params: S.CommitParams, response: S.Responses.proposal },
    run: async ({ hub, caller, params }) =>
      proposalAnswer(200, await hub.getProposal(caller, params.id!, params.hash!)),
  }),
  route({
    method: "POST",
    url: "/contracts/:id/proposals/:hash/signatures",
    summary: "Add signatures to a proposal (appended once it validates)",
    auth: "required",
    schema: { params: S.CommitParams, body: S.SignProposalBody, response: S.Responses.proposal },
    run: async ({ hub, caller, params, body }) =>
      proposalAnswer(200, await hub.signProposal(caller, params.id!, params.hash!, body)),
  }),
  route({
    method: "DELETE",
    url: "/contracts/:id/proposals/:hash",
    summary: "The proposer or the owner withdraws a proposal",
    auth: "required",
    schema: { params: S.CommitParams, response: S.Responses.proposal },
    run: async ({ hub, caller, params }) =>
      proposalAnswer(200, await hub.withdrawProposal(caller, params.id!, params.hash!)),
  }),
  route({
    method: "POST",
    url: "/contracts/:id/grant",
    summary: "Owner grants reader, writer or none to an identity",
    auth: "required",
    schema: { params: S.IdParams, body: S.GrantBody, response: S.Responses.granted },
    run: ({ hub, caller, params, body }) => hub.grant(caller, params.id, body),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/assets",
    summary: "A page of the assets created in the contract and of the balances it holds, with their totals",
    auth: "optional",
    schema: { params: S.IdParams, querystring: S.PageQuery, response: S.Responses.assets },
    run: ({ hub, caller, params, query }) => hub.getAssets(caller, params.id, query),
  }),
  route({
    method: "GET",
    url: "/contracts/:id/incoming",
    summary: "SENDs addressed to the contract, oldest first, with their receipts (pending=true: not yet received)",
    auth: "optional",
    schema: { params: S.IdParams, querystring: S.IncomingQuery, response: S.Responses.incoming },
    run: ({ hub, caller, params, query }) => hub.listIncomingSends(caller, params.id, query),
  }),
  route({
    method: "GET",
    url: "/templates",
    summary: "Template catalogue (without model and rules)",
    auth: "none",
    schema: { response: S.Responses.any },
    run: ({ hub }) => hub.listTemplates(),
  }),
  route({
    method: "GET",
    url: "/templates/:id",
    summary: "One template with its model and rules",
    auth: "none",
    schema: { params: S.TemplateParams, response: S.Responses.any },
    run: ({ hub, params }) => hub.getTemplate(params.id),
  }),
  route({
    method: "GET",
    url: "/checkpoint",
    summary: "The log's signed checkpoint (C2SP signed note, text/plain)",
    auth: "none",
    schema: { response: S.Responses.any },
    run: async ({ hub }) => new Answer(200, (await hub.getCheckpoint()).checkpoint, "text/plain; charset=utf-8"),
  }),
  route({
    method: "GET",
    url: "/checkpoint/key",
    summary: "The log key, its origin and its signed-note verifier key",
    auth: "none",
    schema: { response: S.Responses.checkpointKey },
    run: ({ hub }) => hub.getCheckpointKey(),
  }),
  route({
    method: "GET",
    url: "/proofs/inclusion",
    summary: "Inclusion proof of a commit in the tree of `size` leaves (default: now)",
    auth: "optional",
    schema: { querystring: S.InclusionQuery, response: S.Responses.inclusionProof },
    run: ({ hub, caller, query }) => hub.getInclusionProof(caller, query),
  }),
  route({
    method: "GET",
    url: "/proofs/consistency",
    summary: "Consistency proof between two tree sizes",
    auth: "none",
    schema: { querystring: S.ConsistencyQuery, response: S.Responses.consistencyProof },
    run: ({ hub, query }) => hub.getConsistencyProof(query),
  }),
  route({
    method: "POST",
    url: "/register",
    summary: "Register an access key for an identity (both keys sign)",
    auth: "none",
    status: 201,
    schema: { body: S.RegisterBody, response: S.Responses.registered },
    run: ({ registry, body, admitNewIdentity }) => registry.register(body, admitNewIdentity),
  }),
  route({
    method: "GET",
    url: "/access",
    summary: "The caller's identity and access keys",
    auth: "required",
    schema: { response: S.Responses.access },
    run: ({ registry, caller }) => registry.list(caller),
  }),
  route({
    method: "POST",
    url: "/access/revoke",
    summary: "Revoke an access key (signed request, or identity signature)",
    auth: "optional",
    schema: { body: S.RevokeBody, response: S.Responses.revoked },
    run: ({ registry, caller, body }) => registry.revoke(caller, body),
  }),
];
