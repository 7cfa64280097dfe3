/**
 * TypeBox schemas of every request: one object per shape is the validator of the REST route
 * and the JSON-RPC method, the OpenAPI source, and (as the type of the same name, its
 * `Static`) the input type of the core's operation and of the SDK. Shapes check
 * types only; hex, ids and business rules are checked by the hub's strict decoders, which
 * name the exact problem.
 */
import { type Static, Type } from "typebox";

const CONTRACT_ID = "^[A-Za-z0-9_-]{1,64}$";
const HASH = "^[0-9a-f]{64}$";

export const ContractId = Type.String({ pattern: CONTRACT_ID, description: "Contract id" });
export const Hash = Type.String({ pattern: HASH, description: "Commit hash, 64 lower-case hex" });

export const ErrorBody = Type.Object({
  error: Type.String(),
  code: Type.String(),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const IdParams = Type.Object({ id: ContractId });
export const CommitParams = Type.Object({ id: ContractId, hash: Hash });
export const TemplateParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type PageQuery = Static<typeof PageQuery>;
/** `GET /contracts`: a page, and `include=state` for each listed contract's current state (docs/api.md). */
export const ListContractsQuery = Type.Object({
  include: Type.Optional(Type.String({ description: "state: each listed contract's current state as well" })),
  ...PageQuery.properties,
});
export type ListContractsQuery = Static<typeof ListContractsQuery>;
export const InclusionQuery = Type.Object({
  hash: Hash,
  size: Type.Optional(Type.Integer({ minimum: 1 })),
});
export const ConsistencyQuery = Type.Object({
  from: Type.Integer({ minimum: 1 }),
  to: Type.Optional(Type.Integer({ minimum: 1 })),
});
export const PullQuery = Type.Object({
  since: Type.Optional(Hash),
  // At least 1: a pull of none could only say has_more with nothing to continue from.
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type PullQuery = Static<typeof PullQuery>;

export const Operation = Type.Object({
  method: Type.String(),
  path: Type.Optional(Type.String()),
  value: Type.Optional(Type.Unknown()),
  action: Type.Optional(Type.String()),
});

export const WireCommit = Type.Object({
  hash: Type.String(),
  parent: Type.Union([Type.String(), Type.Null()]),
  data: Type.Array(Operation),
  head: Type.Object({
    parent: Type.Union([Type.String(), Type.Null()]),
    signatures: Type.Record(Type.String(), Type.String()),
    attestations: Type.Optional(Type.Array(Type.Unknown())),
  }),
});

/**
 * An object whose members are anything: checked as an object, its members left to the hub.
 * `Type.Record(Type.String(), Type.Unknown())` compiles to a walk of every member that checks
 * nothing (`Object.entries`); with the template check's own listing of them, 90,000
 * parameters held the event loop 110–200 ms.
 */
const AnyMembers = (options: { description?: string } = {}) =>
  Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true, ...options }));

export const CreateContractBody = Type.Object({
  contract_id: Type.Optional(Type.String()),
  model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  rules: Type.Optional(Type.Array(Type.String())),
  owner: Type.Optional(Type.String()),
  state: Type.Optional(AnyMembers()),
  readers: Type.Optional(Type.Array(Type.String())),
  template: Type.Optional(Type.String()),
  params: Type.Optional(AnyMembers()),
});
export type CreateContractBody = Static<typeof CreateContractBody>;

export const SubmitCommitBody = Type.Object({
  contract_id: Type.Optional(
    Type.String({ description: "Required in the field form (400 without it); the {commit} form needs none" }),
  ),
  method: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  value: Type.Optional(Type.Unknown()),
  action: Type.Optional(Type.String()),
  action_labels: Type.Optional(Type.Array(Type.String())),
  signatures: Type.Optional(Type.Record(Type.String(), Type.String())),
  attestations: Type.Optional(Type.Array(Type.Unknown())),
  parent: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  commit: Type.Optional(WireCommit),
});
export type SubmitCommitBody = Static<typeof SubmitCommitBody>;

export const PushBody = Type.Object({ commits: Type.Array(WireCommit) });
export type PushBody = Static<typeof PushBody>;

export const RegisterBody = Type.Object({
  identity_pubkey: Type.String(),
  access_pubkey: Type.String(),
  identity_signature: Type.String(),
  access_signature: Type.String(),
});
export type RegisterBody = Static<typeof RegisterBody>;

export const RevokeBody = Type.Object({
  access_key: Type.String(),
  identity_pubkey: Type.Optional(Type.String()),
  identity_signature: Type.Optional(Type.String()),
});
export type RevokeBody = Static<typeof RevokeBody>;

export const GrantBody = Type.Object({
  identity: Type.String(),
  role: Type.Union([Type.Literal("reader"), Type.Literal("writer"), Type.Literal("none")]),
});
export type GrantBody = Static<typeof GrantBody>;

export const SynthesizeBody = Type.Object({
  description: Type.String(),
  pattern_hint: Type.Optional(Type.String()),
});
export type SynthesizeBody = Static<typeof SynthesizeBody>;

const StateView = Type.Object({
  current_state: Type.String(),
  current_states: Type.Array(Type.String()),
  valid_actions: Type.Array(Type.Object({ action: Type.String(), required_signer: Type.String(), to: Type.String() })),
  commit_count: Type.Integer(),
  head: Type.String(),
});

const LogEntry = Type.Object({
  index: Type.Integer(),
  hash: Type.String(),
  method: Type.String(),
  path: Type.Optional(Type.String()),
  value: Type.Optional(Type.Unknown()),
  signer: Type.Optional(Type.String()),
  signers: Type.Array(Type.String()),
  timestamp: Type.Integer(),
  action_labels: Type.Optional(Type.Array(Type.String())),
  leaf_index: Type.Optional(Type.Integer()),
});

/** `GET /contracts/:id/incoming`: `pending=true` keeps the SENDs not yet received. */
export const IncomingQuery = Type.Object({
  pending: Type.Optional(
    Type.Union([Type.Boolean(), Type.Literal("true"), Type.Literal("false")], {
      description: "true: only the SENDs not yet received (default false: all)",
    }),
  ),
  ...PageQuery.properties,
});
const IncomingSend = Type.Object({
  send_commit_id: Type.String(),
  from_contract: Type.String(),
  asset_id: Type.String(),
  issuer: Type.String(),
  amount: Type.Integer(),
  timestamp: Type.Integer(),
  leaf_index: Type.Integer(),
  received: Type.Boolean(),
  recv_commit_id: Type.Union([Type.String(), Type.Null()]),
});

/** Proposals: a commit assembled on the hub while its signers add their signatures. */
export const ProposalQuery = Type.Object({
  status: Type.Optional(Type.String({ description: "open (default), committed, stale, withdrawn or expired" })),
  ...PageQuery.properties,
});
export const ProposeBody = Type.Object({ commit: Type.Unknown({ description: "A push-format commit" }) });
export const SignProposalBody = Type.Object({
  signatures: Type.Unknown({ description: '{"<state path or ed25519:hex>": "<signature hex>"}' }),
});
const MissingSignature = Type.Object({
  predicate: Type.String(),
  signers: Type.Array(Type.String()),
  needed: Type.Integer(),
});
const Proposal = Type.Object({
  hash: Type.String(),
  contract_id: Type.String(),
  parent: Type.String(),
  data: Type.Array(Type.Unknown()),
  signatures: Type.Record(Type.String(), Type.String()),
  attestations: Type.Optional(Type.Array(Type.Unknown())),
  status: Type.String(),
  missing: Type.Array(MissingSignature),
  proposer: Type.String(),
  created_at: Type.Integer(),
  expires_at: Type.Integer(),
  commit_index: Type.Optional(Type.Integer()),
});

/** Response shapes, for the OpenAPI document only (responses are written as plain JSON). */
export const Responses = {
  health: Type.Object({ status: Type.String(), version: Type.String(), storage: Type.Optional(Type.String()) }),
  created: Type.Object({ contract_id: Type.String(), created_at: Type.Integer() }),
  contract: Type.Object({
    contract_id: Type.String(),
    model: Type.Union([Type.String(), Type.Null()]),
    rules: Type.Array(Type.String()),
    state: StateView,
    created_at: Type.Integer(),
  }),
  contracts: Type.Object({ contracts: Type.Array(Type.Unknown()), total: Type.Integer() }),
  state: StateView,
  log: Type.Object({ commits: Type.Array(LogEntry), total: Type.Integer() }),
  logEntry: LogEntry,
  submitted: Type.Object({
    commit_hash: Type.String(),
    index: Type.Integer(),
    new_state: StateView,
    timestamp: Type.Integer(),
    leaf_index: Type.Optional(Type.Integer()),
  }),
  checkpointKey: Type.Object({
    origin: Type.String(),
    public_key: Type.String(),
    verifier_key: Type.String(),
    witnesses: Type.Optional(
      Type.Object({
        quorum: Type.Integer(),
        cosigned_size: Type.Union([Type.Integer(), Type.Null()]),
        tree_size: Type.Union([Type.Integer(), Type.Null()]),
        witnesses: Type.Array(
          Type.Object({
            name: Type.String(),
            verifier_key: Type.String(),
            url: Type.String(),
            cosigned_size: Type.Union([Type.Integer(), Type.Null()]),
            error: Type.Union([Type.String(), Type.Null()]),
          }),
        ),
      }),
    ),
  }),
  inclusionProof: Type.Object({
    leaf_index: Type.Integer(),
    tree_size: Type.Integer(),
    proof: Type.Array(Type.String()),
  }),
  consistencyProof: Type.Object({ from: Type.Integer(), to: Type.Integer(), proof: Type.Array(Type.String()) }),
  pushed: Type.Object({ pushed: Type.Integer(), head: Type.String() }),
  pulled: Type.Object({
    contract_id: Type.String(),
    head: Type.String(),
    commits: Type.Array(Type.Unknown()),
    has_more: Type.Optional(Type.Boolean()),
  }),
  registered: Type.Object({ identity: Type.String(), access_key: Type.String(), created_at: Type.Integer() }),
  access: Type.Object({ identity: Type.String(), access_keys: Type.Array(Type.Unknown()) }),
  revoked: Type.Object({ access_key: Type.String(), revoked_at: Type.Integer() }),
  granted: Type.Object({ contract_id: Type.String(), identity: Type.String(), role: Type.String() }),
  any: Type.Unknown(),
  incoming: Type.Object({ contract_id: Type.String(), sends: Type.Array(IncomingSend), total: Type.Integer() }),
  assets: Type.Object({
    contract_id: Type.String(),
    assets: Type.Array(
      Type.Object({
        asset_id: Type.String(),
        issuer: Type.String(),
        quantity: Type.Integer(),
        divisibility: Type.Integer(),
      }),
    ),
    balances: Type.Array(Type.Object({ asset_id: Type.String(), issuer: Type.String(), amount: Type.Integer() })),
    assets_total: Type.Integer(),
    balances_total: Type.Integer(),
  }),
  proposal: Type.Object({ proposal: Proposal, commit: Type.Optional(Type.Unknown()) }),
  proposals: Type.Object({ proposals: Type.Array(Proposal) }),
};
