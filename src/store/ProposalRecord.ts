import type { Attestation, Operation } from "../contract/Commit.js";
import { ContractError } from "../contract/ContractError.js";
import { BIG_ROW_CHARS, parseColumn } from "./sqlite/commitRows.js";

/** What the store records of a proposal's life; `stale` and `expired` are derived (see proposalStatus). */
export type StoredProposalStatus = "open" | "committed" | "withdrawn";

/** Every status a proposal shows. */
export type ProposalStatus = StoredProposalStatus | "stale" | "expired";

export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ["open", "committed", "stale", "withdrawn", "expired"];

/** A commit being assembled on the hub: its content, the signatures collected so far, and its standing. */
export interface ProposalRecord {
  contractId: string;
  hash: string;
  parent: string;
  data: Operation[];
  /** Signer (state path or `ed25519:<hex>`) → signature hex; every one verified on arrival. */
  signatures: Record<string, string>;
  attestations?: Attestation[];
  status: StoredProposalStatus;
  /** Identity that proposed it, lower-case hex. */
  proposer: string;
  createdAt: number;
  expiresAt: number;
  /** Log index of the commit it became, once committed. */
  commitIndex: number | null;
}

/** What a proposal's derived status depends on: a record's, or a row's (rowStanding). */
export type ProposalStanding = Pick<ProposalRecord, "status" | "parent" | "expiresAt">;

/**
 * The status a proposal shows: a stored-open one is `stale` once the contract's head moved past
 * its parent (it can never be appended), else `expired` from its expiry time on. Deriving both
 * when read means no sweeper has to visit every proposal each time a head moves or a clock ticks.
 */
export function proposalStatus(p: ProposalStanding, head: string, now: number): ProposalStatus {
  if (p.status !== "open") return p.status;
  if (p.parent !== head) return "stale";
  return now >= p.expiresAt ? "expired" : "open";
}

/**
 * The SQL condition selecting proposals `p` of contract `c` by derived status (as proposalStatus);
 * `now` is the placeholder of the current time.
 */
export function statusCondition(status: ProposalStatus, now: string): string {
  switch (status) {
    case "open":
      return `p.status = 'open' AND p.parent = c.head AND p.expires_at > ${now}`;
    case "stale":
      return "p.status = 'open' AND p.parent <> c.head";
    case "expired":
      return `p.status = 'open' AND p.parent = c.head AND p.expires_at <= ${now}`;
    default:
      return `p.status = '${status}'`;
  }
}

/** A `proposals` row. */
export interface ProposalRow {
  contract_id: string;
  hash: string;
  parent: string;
  data: string;
  signatures: string;
  attestations: string | null;
  status: StoredProposalStatus;
  proposer: string;
  created_at: number;
  expires_at: number;
  commit_index: number | null;
}

/** What the status of a row's proposal depends on, read without parsing its JSON columns (the writer thread's checks). */
export function rowStanding(r: ProposalRow): ProposalStanding {
  return { status: r.status, parent: r.parent, expiresAt: Number(r.expires_at) };
}

/**
 * The record of a proposals row (JSON columns parsed). A row whose data or attestations are
 * big (BIG_ROW_CHARS) comes as a promise, those columns parsed in the hub's shared slices
 * (parseStoredJson.ts) as a commit's are: one JSON.parse of a proposal holding an attestation
 * of 15 MB held the event loop as long. Every store awaits it, so a small row costs no promise.
 */
export function proposalFromRow(r: ProposalRow): ProposalRecord | Promise<ProposalRecord> {
  if (r.data.length >= BIG_ROW_CHARS || (r.attestations?.length ?? 0) >= BIG_ROW_CHARS) return proposalFromBigRow(r);
  return rowProposal(r, JSON.parse(r.data), r.attestations === null ? undefined : JSON.parse(r.attestations));
}

/** The records of `rows`, one after the other (a big one parsed in slices before the next). */
export async function proposalsFromRows(rows: readonly ProposalRow[]): Promise<ProposalRecord[]> {
  const out: ProposalRecord[] = [];
  for (const r of rows) out.push(await proposalFromRow(r));
  return out;
}

function rowProposal(r: ProposalRow, data: Operation[], attestations: Attestation[] | undefined): ProposalRecord {
  const p: ProposalRecord = {
    contractId: r.contract_id,
    hash: r.hash,
    parent: r.parent,
    data,
    signatures: JSON.parse(r.signatures),
    status: r.status,
    proposer: r.proposer,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    commitIndex: r.commit_index === null ? null : Number(r.commit_index),
  };
  if (attestations !== undefined) p.attestations = attestations;
  return p;
}

/** A big row's JSON columns parsed in slices; a text the sliced parse refuses is reported as JSON.parse reports it (commitRows.ts). */
async function proposalFromBigRow(r: ProposalRow): Promise<ProposalRecord> {
  try {
    const data = (await parseColumn(r.data)) as Operation[];
    const attestations = r.attestations === null ? undefined : ((await parseColumn(r.attestations)) as Attestation[]);
    return rowProposal(r, data, attestations);
  } catch (err) {
    if (err instanceof ContractError) throw new SyntaxError(err.message, { cause: err });
    throw err;
  }
}

/** The columns of an INSERT INTO proposals, in table order, and their values. */
export const PROPOSAL_INSERT_COLUMNS =
  "contract_id, hash, parent, data, signatures, attestations, status, proposer, created_at, expires_at, commit_index";

/**
 * The INSERT's values of `p`, each JSON column serialised once (`data` and `attestations`
 * given when they were written in slices: proposalParamsInSlices.ts).
 */
export function proposalParams(
  p: ProposalRecord,
  data = JSON.stringify(p.data),
  attestations = p.attestations === undefined || p.attestations.length === 0 ? null : JSON.stringify(p.attestations),
): unknown[] {
  return [
    p.contractId,
    p.hash,
    p.parent,
    data,
    JSON.stringify(p.signatures),
    attestations,
    p.status,
    p.proposer,
    p.createdAt,
    p.expiresAt,
    p.commitIndex,
  ];
}

/**
 * What saving `incoming` does given the `existing` row of that hash (derived status at `now`):
 * keep an open or committed one, or write (a new proposal, or a withdrawn/expired/stale one reopened).
 */
export function keepsExisting(existing: ProposalStanding | null, head: string, now: number): boolean {
  if (existing === null) return false;
  const status = proposalStatus(existing, head, now);
  return status === "open" || status === "committed";
}

/** Whether two sets of proposal signatures hold the same signers with the same signatures. */
export function sameSignatures(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * The CONFLICT of an append that would complete a proposal no longer open (another hub
 * instance withdrew it after the commit was decided): the append is rolled back.
 */
export function proposalNotOpen(contractId: string, hash: string, status: string | undefined) {
  return new ContractError(
    "CONFLICT",
    `Proposal ${hash} of contract ${contractId} is ${status ?? "gone"}: it is not appended`,
    {
      reason: `proposal_${status ?? "not_found"}`,
      ...(status !== undefined ? { status } : {}),
    },
  );
}

/** The RATE_LIMITED refusal past the open-proposal cap. */
export const tooManyProposals = (contractId: string, max: number) => ({
  message: `Contract ${contractId} already has ${max} open proposals (the limit): withdraw one or let it complete first`,
  details: { reason: "too_many_proposals", limit: max },
});
