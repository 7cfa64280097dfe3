/**
 * Access follows the state (docs/security.md): a subscriber of a private contract that loses
 * read access — its `.id` seat overwritten, or its grant withdrawn — gets
 * `subscription_closed {reason: "access_lost"}` and no further event, not even the commit
 * that removed it. On PostgreSQL the writer and the subscriber use two hub processes on one
 * database, so the change reaches the subscriber's instance through LISTEN/NOTIFY.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CommitNotification, HubSocket } from "../../src/client/HubSocket.js";
import { type HostileHub, STORES, startHostileHub, startSecondInstance } from "./support/hostileLoad.js";
import { Party } from "./support/party.js";
import { Rng } from "./support/seeded.js";

/** Waits until `done()` (the hub delivers asynchronously); fails rather than hang. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; !done(); i++) {
    if (i > 3000) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A subscriber's view: its events and why its subscription ended. */
async function watch(url: string, party: Party, id: string) {
  const socket = await HubSocket.connect(url, party.accessSeed);
  const seen = { events: [] as CommitNotification[], closed: null as string | null };
  await socket.subscribe(id, (e) => seen.events.push(e), { onClosed: (reason) => (seen.closed = reason) });
  return { socket, seen };
}

for (const kind of STORES) {
  describe(`hostile load: access follows the state (${kind})`, { timeout: 120_000 }, () => {
    it("an overwritten seat and a withdrawn grant end the subscription before the next event", async () => {
      const writerHub = await startHostileHub(kind);
      // PostgreSQL: the subscribers use a second instance on the same database.
      let readerHub: HostileHub = writerHub;
      const rng = new Rng(4);
      const owner = new Party(rng);
      const carol = new Party(rng);
      const dave = new Party(rng);
      const erin = new Party(rng);
      for (const p of [owner, carol, dave, erin]) await p.register(writerHub.url);
      if (kind === "postgres") readerHub = await startSecondInstance(writerHub);
      const client = owner.client(writerHub.url);
      const { contract_id: id } = await client.createContract({
        model: null,
        rules: [],
        readers: [],
        state: { "/users/carol.id": carol.key },
      } as Parameters<typeof client.createContract>[0]);
      await client.grant(id, dave.identity, "reader");

      const asCarol = await watch(readerHub.url, carol, id);
      const asDave = await watch(readerHub.url, dave, id);
      await client.submitCommit(id, { method: "post", path: "/notes/1.text", value: "for everyone" });
      await until(() => asCarol.seen.events.length === 1 && asDave.seen.events.length === 1, "the first event");

      // Carol's seat goes to Erin: Carol is cut off before that commit's event.
      await client.submitCommit(id, { method: "post", path: "/users/carol.id", value: erin.key });
      await until(() => asCarol.seen.closed !== null, "carol's subscription_closed");
      assert.equal(asCarol.seen.closed, "access_lost");
      await until(() => asDave.seen.events.length === 2, "dave's second event");

      // Dave's grant is withdrawn: he is cut off before the next commit's event.
      await client.grant(id, dave.identity, "none");
      await client.submitCommit(id, { method: "post", path: "/notes/2.text", value: "private again" });
      await until(() => asDave.seen.closed !== null, "dave's subscription_closed");
      assert.equal(asDave.seen.closed, "access_lost");

      // A later commit reaches neither; Erin, the new party, may subscribe and read it all.
      await client.submitCommit(id, { method: "post", path: "/notes/3.text", value: "after" });
      const asErin = await watch(readerHub.url, erin, id);
      await client.submitCommit(id, { method: "post", path: "/notes/4.text", value: "erin sees" });
      await until(() => asErin.seen.events.length === 1, "erin's event");
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        asCarol.seen.events.map((e) => e.commit.index),
        [1],
      );
      assert.deepEqual(
        asDave.seen.events.map((e) => e.commit.index),
        [1, 2],
      );
      for (const s of [asCarol, asDave, asErin]) s.socket.close();
      if (readerHub !== writerHub) await readerHub.stop();
      await writerHub.stop();
    });
  });
}
