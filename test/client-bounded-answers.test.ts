/**
 * A client checking a hub reads the hub's checkpoint, log key and proofs up to 64 KiB
 * (docs/transparency.md): each is a few KiB at most, and the hub is the party being checked,
 * so one answering megabytes is refused (UPSTREAM_ERROR `answer_too_large`, naming the limit)
 * and its answer is not read to the end into the client's memory.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { ContractError } from "../src/contract/ContractError.js";
import { HUGE, type HugeAnswers, hugeAnswers } from "./support/hugeAnswers.js";

const hubs: HugeAnswers[] = [];
after(async () => {
  for (const hub of hubs) await hub.close();
});

for (const announce of [false, true]) {
  test(`a hub answering megabytes for its checkpoint, key or proofs is refused at 64 KiB (${announce ? "length announced" : "chunked"})`, async () => {
    // White space: a JSON body, so only its size can refuse it.
    const hub = await hugeAnswers({ fill: " ", contentType: "application/json", announce, tail: "{}" });
    hubs.push(hub);
    const client = new HubClient({ url: hub.url, retries: 0 });
    const calls: [string, () => Promise<unknown>][] = [
      ["checkpoint", () => client.checkpoint()],
      ["checkpointKey", () => client.checkpointKey()],
      ["inclusionProof", () => client.inclusionProof("ab".repeat(32), 1)],
      ["consistencyProof", () => client.consistencyProof(1, 2)],
    ];
    for (const [name, call] of calls) {
      const before = hub.written();
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof ContractError, `${name}: ${String(err)}`);
        assert.equal(err.code, "UPSTREAM_ERROR", name);
        assert.deepEqual(err.details, { reason: "answer_too_large", limit: 65536 }, name);
        return true;
      });
      assert.ok(hub.written() - before < HUGE, `${name} read the whole answer`);
    }
  });
}
