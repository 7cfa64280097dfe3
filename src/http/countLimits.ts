/**
 * Count limits checked before schema validation (docs/security.md): the schema walk of a push
 * visits every commit, operation, signature and attestation in one piece, so a body with more
 * than the allowed commits per push, or operations, signatures or attestations per commit, is
 * refused (413 naming the limit) before that work starts. The hub checks the same limits
 * again; this is the cheap early refusal.
 *
 * A commit legitimately carries a handful of signatures (one per signer its model names), yet
 * `head.signatures` is a map whose names the schema checks one by one: 100,000 entries, about
 * a megabyte, held the event loop 140–300 ms there. The count is taken from the names the
 * sliced parser remembered (memberNames.ts), so even that object is never listed here.
 */
import { ContractError } from "../contract/ContractError.js";
import type { Limits } from "../contract/limits.js";
import { ownKeys } from "../contract/memberNames.js";

type CountLimits = Pick<
  Limits,
  "commitsPerPush" | "operationsPerCommit" | "signaturesPerCommit" | "attestationsPerCommit"
>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function tooMany(what: string, limit: keyof CountLimits, max: number, actual: number): never {
  throw new ContractError("PAYLOAD_TOO_LARGE", `Cannot accept request: ${actual} ${what} exceed the limit of ${max}`, {
    reason: "limit_exceeded",
    limit,
    max,
    actual,
  });
}

/** `signatures` and `attestations` of a commit's head, or of a body giving a commit as fields (or signing a proposal). */
function checkSigned(holder: unknown, limits: CountLimits): void {
  if (!isObject(holder)) return;
  const { signatures, attestations } = holder;
  if (isObject(signatures)) {
    const count = ownKeys(signatures).length;
    if (count > limits.signaturesPerCommit)
      tooMany("signatures", "signaturesPerCommit", limits.signaturesPerCommit, count);
  }
  if (Array.isArray(attestations) && attestations.length > limits.attestationsPerCommit) {
    tooMany("attestations", "attestationsPerCommit", limits.attestationsPerCommit, attestations.length);
  }
}

function checkCommit(commit: unknown, limits: CountLimits): void {
  if (!isObject(commit)) return;
  const { data, head } = commit;
  if (Array.isArray(data) && data.length > limits.operationsPerCommit) {
    tooMany("operations", "operationsPerCommit", limits.operationsPerCommit, data.length);
  }
  checkSigned(head, limits);
}

/**
 * A new contract's `state` becomes its genesis commit: the genesis operation, then one `post`
 * per path. So at most `operationsPerCommit` − 1 paths; the hub built and checked all of
 * them before refusing (60,000 paths held the event loop 280–400 ms).
 */
function checkState(state: unknown, limits: CountLimits): void {
  if (!isObject(state)) return;
  const operations = ownKeys(state).length + 1;
  if (operations > limits.operationsPerCommit) {
    tooMany("genesis operations (one per state path)", "operationsPerCommit", limits.operationsPerCommit, operations);
  }
}

/**
 * Throws PAYLOAD_TOO_LARGE when `body.commits`, any commit's `data`, `head.signatures` or
 * `head.attestations`, the body's own `signatures` or `attestations`, or the genesis a new
 * contract's `state` makes, is over its count limit.
 */
export function checkCountLimits(body: unknown, limits: CountLimits): void {
  if (!isObject(body)) return;
  const { commits, commit } = body;
  if (Array.isArray(commits)) {
    if (commits.length > limits.commitsPerPush) {
      tooMany("commits", "commitsPerPush", limits.commitsPerPush, commits.length);
    }
    for (const c of commits) checkCommit(c, limits);
  }
  checkCommit(commit, limits);
  checkSigned(body, limits);
  checkState(body.state, limits);
}
