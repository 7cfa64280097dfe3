/**
 * Count limits checked before schema validation (docs/security.md): the schema walk of a push
 * visits every commit and operation, so a body with more than the allowed commits per push
 * or operations per commit is refused (413 naming the limit) before that work starts. The
 * hub checks the same limits again; this is the cheap early refusal.
 */
import { ContractError } from "../contract/ContractError.js";
import type { Limits } from "../contract/limits.js";

type CountLimits = Pick<Limits, "commitsPerPush" | "operationsPerCommit">;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function tooMany(what: string, limit: keyof CountLimits, max: number, actual: number): never {
  throw new ContractError("PAYLOAD_TOO_LARGE", `Cannot accept request: ${actual} ${what} exceed the limit of ${max}`, {
    reason: "limit_exceeded",
    limit,
    max,
    actual,
  });
}

function checkOperations(commit: unknown, limits: CountLimits): void {
  const data = isObject(commit) ? commit.data : undefined;
  if (Array.isArray(data) && data.length > limits.operationsPerCommit) {
    tooMany("operations", "operationsPerCommit", limits.operationsPerCommit, data.length);
  }
}

/** Throws PAYLOAD_TOO_LARGE when `body.commits` or any commit's `data` is over its count limit. */
export function checkCountLimits(body: unknown, limits: CountLimits): void {
  if (!isObject(body)) return;
  const { commits, commit } = body;
  if (Array.isArray(commits)) {
    if (commits.length > limits.commitsPerPush) {
      tooMany("commits", "commitsPerPush", limits.commitsPerPush, commits.length);
    }
    for (const c of commits) checkOperations(c, limits);
  }
  checkOperations(commit, limits);
}
