/**
 * Hostile load, replays (docs/reliability.md, docs/security.md): anonymous WebSockets that
 * `subscribe {since: 0}` to a long public contract and close at once used to stall the hub
 * for seconds, and a few hundred of them kept it at 100% CPU after the client left. Now a
 * replay runs in slices that yield and stops when its socket closes: `GET /health` keeps
 * answering while they run, the hub goes quiet once they are gone, and past 100 anonymous
 * sockets from one address the upgrade is refused. Short form: 1,000 commits, 20 sockets;
 * long form: 10,000 commits, 300 sockets (of which 100 are let in).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { WebSocket } from "ws";
import { HEALTH_BOUND_MS, HealthProbe, report, STORES, startHostileHub } from "./support/hostileLoad.js";
import { Party } from "./support/party.js";
import { LONG, Rng } from "./support/seeded.js";

const COMMITS = LONG ? 10_000 : 1_000;
const SOCKETS = LONG ? 300 : 20;

/** CPU milliseconds (user + system) a process has used, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks (100/s).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Opens `/ws`, subscribes from index 0 once the hello arrived, closes right after sending; resolves with how it went. */
function subscribeAndLeave(url: string, contractId: string): Promise<"left" | "refused"> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode === 429 ? "refused" : "left");
    });
    ws.once("error", () => resolve("refused"));
    ws.once("message", () => {
      ws.send(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscribe", params: { contract_id: contractId, since: 0 } }),
      );
      ws.close();
      resolve("left");
    });
  });
}

for (const kind of STORES) {
  describe(`hostile load: subscribe-since replays (${kind})`, { timeout: 900_000 }, () => {
    it(`${SOCKETS} anonymous sockets replaying ${COMMITS} commits and leaving: /health answers, the hub goes quiet`, async () => {
      const hub = await startHostileHub(kind);
      const rng = new Rng(2);
      const owner = new Party(rng);
      const honest = new Party(rng);
      await owner.register(hub.url);
      await honest.register(hub.url);
      const id = "c_hostile_replay";
      const client = owner.client(hub.url);
      const genesis = owner.genesis(id);
      let parent = genesis.hash;
      await client.push(id, [genesis]);
      for (let done = 1; done < COMMITS; ) {
        const n = Math.min(2_000, COMMITS - done);
        const chain = owner.chain(id, parent, n, `b${done}`);
        await client.push(id, chain);
        parent = chain.at(-1)!.hash;
        done += n;
      }
      const other = await honest.client(hub.url).createContract({ model: null, rules: [] });

      const probe = new HealthProbe(hub.url);
      const before = cpuMs(hub.pid);
      const started = performance.now();
      const outcomes = await Promise.all(Array.from({ length: SOCKETS }, () => subscribeAndLeave(hub.url, id)));
      const committed = await honest
        .client(hub.url)
        .submitCommit(other.contract_id, { method: "post", path: "/note.text", value: "still here" });
      // Let the hub notice the closes, then see whether it keeps working for nobody.
      await new Promise((r) => setTimeout(r, 500));
      const quietFrom = cpuMs(hub.pid);
      await new Promise((r) => setTimeout(r, 2_000));
      const cpuAfterLeaving = cpuMs(hub.pid) - quietFrom;
      const health = await probe.stop();
      const figures = {
        commits: COMMITS,
        sockets: SOCKETS,
        refused: outcomes.filter((o) => o === "refused").length,
        cpuDuringMs: quietFrom - before,
        cpuIn2sAfterLeavingMs: cpuAfterLeaving,
        elapsedMs: Math.round(performance.now() - started),
        health,
      };
      await hub.stop();
      report(`replay ${kind}`, figures);
      assert.equal(committed.index, 1);
      assert.equal(health.failures, 0);
      assert.ok(health.maxMs <= HEALTH_BOUND_MS, `GET /health took ${health.maxMs} ms during the replays`);
      // Replays for closed sockets must stop: the hub idles (generous: half of one core).
      assert.ok(cpuAfterLeaving < 1_000, `the hub used ${cpuAfterLeaving} ms of CPU in the 2 s after the clients left`);
      // The cap counts sockets open at once, and these close right after their hello: the
      // first 100 always get in, later ones only while fewer than 100 are still open.
      assert.ok(
        figures.refused <= Math.max(0, SOCKETS - 100),
        `${figures.refused} of ${SOCKETS} refused under a cap of 100 open sockets`,
      );
    });
  });
}
