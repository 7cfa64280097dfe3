/**
 * `POST /contracts/:id/commits {commit}` (and JSON-RPC `submitCommit` with `commit`) is
 * validated like a push of one commit (docs/api.md): a commit that claims the head's hash is
 * an idempotent re-send only when its content really hashes to it. A client-built commit
 * whose content differs from what it claims (or is malformed) is refused as the push route
 * refuses it, never answered 200 as if it were stored; over a real hub on loopback.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { WireCommit } from "../src/contract/Commit.js";
import { ContractError } from "../src/contract/ContractError.js";
import { type LiveHub, type Party, startLiveHub, type Transport } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;
let transports: Transport[];

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  transports = await live.transports();
});
after(async () => live?.close());

/** A contract without a model whose head is `stored`, a commit posting `/a.text`. */
async function contractWithHead(t: Transport): Promise<{ id: string; stored: WireCommit }> {
  const { contract_id: id } = (await t.call(alice, "createContract", { model: null, rules: [] })) as {
    contract_id: string;
  };
  const { head } = (await t.call(alice, "getContractState", { contract_id: id })) as { head: string };
  const stored = buildWireCommit(id, head, [{ method: "post", path: "/a.text", value: "real" }], []);
  await t.call(alice, "submitCommit", { contract_id: id, commit: stored });
  return { id, stored };
}

async function refusal(t: Transport, id: string, commit: unknown): Promise<ContractError> {
  try {
    await t.call(alice, "submitCommit", { contract_id: id, commit });
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return err;
  }
  assert.fail(`${t.name}: a commit claiming the head's hash was answered as stored`);
}

describe("a {commit} that claims the head's hash", () => {
  it("is an idempotent re-send when its content hashes to it", async () => {
    for (const t of transports) {
      const { id, stored } = await contractWithHead(t);
      const again = (await t.call(alice, "submitCommit", { contract_id: id, commit: stored })) as {
        commit_hash: string;
        index: number;
      };
      assert.equal(again.commit_hash, stored.hash, t.name);
      assert.equal(again.index, 1, t.name);
    }
  });

  it("is refused VALIDATION_FAILED hash_mismatch when its content differs", async () => {
    for (const t of transports) {
      const { id, stored } = await contractWithHead(t);
      const forged = { ...stored, data: [{ method: "post", path: "/a.text", value: "forged" }] };
      const err = await refusal(t, id, forged);
      assert.equal(err.code, "VALIDATION_FAILED", t.name);
      assert.equal(err.details?.reason, "hash_mismatch", t.name);
      const log = (await t.call(alice, "getLog", { contract_id: id })) as { total: number };
      assert.equal(log.total, 2, t.name);
    }
  });

  it("is refused INVALID_REQUEST when it is malformed", async () => {
    for (const t of transports) {
      const { id, stored } = await contractWithHead(t);
      const err = await refusal(t, id, { ...stored, data: [{ method: "bogus" }] });
      assert.equal(err.code, "INVALID_REQUEST", t.name);
      assert.equal(err.details?.reason, "unknown_method", t.name);
    }
  });

  it("answers 422 over REST, as a push of the same commit does", async () => {
    const rest = transports[0]!;
    const { id, stored } = await contractWithHead(rest);
    const forged = { ...stored, data: [{ method: "post", path: "/a.text", value: "forged" }] };
    for (const [url, body] of [
      [`/contracts/${id}/commits`, { commit: forged }],
      [`/contracts/${id}/push`, { commits: [forged] }],
    ] as const) {
      const text = JSON.stringify(body);
      const res = await fetch(live.servers.restUrl + url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...signRequest(alice.access.seed, { method: "POST", url, body: text }),
        },
        body: text,
      });
      const answer = (await res.json()) as { code: string; details: { reason: string } };
      assert.equal(res.status, 422, url);
      assert.equal(answer.code, "VALIDATION_FAILED", url);
      assert.equal(answer.details.reason, "hash_mismatch", url);
    }
  });
});
