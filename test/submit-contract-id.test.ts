/**
 * The field body of `POST /contracts/:id/commits` names its contract: `contract_id` is the one
 * field that is not optional (docs/api.md), as in JSON-RPC `submitCommit`. A field body without
 * it is 400 INVALID_REQUEST naming `body/contract_id`, and nothing is appended; the `{commit}`
 * form carries its contract inside the hashed commit and needs no `contract_id` beside it.
 * Over a real hub on loopback.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;
let id: string;

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  id = (await live.rest.withKey(alice.access.seed).createContract({ model: null, rules: [] })).contract_id;
});
after(async () => live?.close());

/** What the route answers: the status and the JSON body's fields these tests read. */
interface Answered {
  status: number;
  json: { code?: string; details: { field?: string; reason?: string }; commit_hash: string; index: number };
}

async function post(body: unknown): Promise<Answered> {
  const url = `/contracts/${id}/commits`;
  const text = JSON.stringify(body);
  const res = await fetch(live.servers.restUrl + url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...signRequest(alice.access.seed, { method: "POST", url, body: text }),
    },
    body: text,
  });
  return { status: res.status, json: (await res.json()) as Answered["json"] };
}

describe("POST /contracts/:id/commits and contract_id", () => {
  it("refuses a field body without contract_id: 400 naming body/contract_id, nothing appended", async () => {
    const res = await post({ method: "post", path: "/a.text", value: "x" });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, "INVALID_REQUEST");
    assert.equal(res.json.details.field, "body/contract_id");
    assert.equal(res.json.details.reason, "schema");
    assert.equal((await live.rest.getState(id)).commit_count, 1);
  });

  it("accepts the field body with contract_id, and the {commit} form without it", async () => {
    const fields = await post({ contract_id: id, method: "post", path: "/a.text", value: "x" });
    assert.equal(fields.status, 201);
    const commit = buildWireCommit(id, fields.json.commit_hash, [{ method: "post", path: "/b.text", value: "y" }], []);
    const client = await post({ commit });
    assert.equal(client.status, 201);
    assert.equal(client.json.index, 2);
  });

  it("answers JSON-RPC submitCommit without contract_id -32602 the same way", async () => {
    const answer = await live.rest
      .withKey(alice.access.seed)
      .rpc("submitCommit", { method: "post", path: "/c.text", value: "z" })
      .then(
        () => assert.fail("accepted"),
        (err: { code: string; details?: { field?: string } }) => err,
      );
    assert.equal(answer.code, "INVALID_REQUEST");
    assert.equal(answer.details?.field, "params/contract_id");
  });
});
