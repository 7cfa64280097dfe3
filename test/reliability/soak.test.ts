/**
 * Soak (docs/reliability.md): a real hub under a seeded mixed load for a fixed time (short
 * form 20 s, `RELIABILITY=long` 10 min, `RELIABILITY_SOAK_SECONDS` overrides): creates,
 * field-form commits, signed pushes (own and shared contracts, so some race), full and
 * `since` pulls, and WebSocket subscriptions that are dropped and resumed from an index.
 * An auditor checks every pull and every event extends what it saw before. Reports op
 * counts, ops/s, p50/p99 commit latency and the hub's RSS drift; fails on any inconsistency
 * or unexpected error.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import type { HubClient } from "../../src/client/HubClient.js";
import type { HubSocket } from "../../src/client/HubSocket.js";
import { isContractError } from "../../src/contract/ContractError.js";
import { killAllHubs, startHub } from "../support/hubProcess.js";
import { Auditor } from "./support/auditor.js";
import { Party } from "./support/party.js";
import { harnessSeed, LONG, percentile, Rng } from "./support/seeded.js";

const SECONDS = Number(process.env.RELIABILITY_SOAK_SECONDS ?? (LONG ? 600 : 20));
const WRITERS = 4;
const SHARED = "soak-shared";

const seed = harnessSeed("soak");
const rng = new Rng(seed);
const base = mkdtempSync(join(tmpdir(), "rel-soak-"));
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it(`soak: ${SECONDS} s of mixed load with an auditor`, { timeout: (SECONDS + 120) * 1000 }, async () => {
  const hub = await startHub(join(base, "data"));
  const parties = Array.from({ length: WRITERS }, () => new Party(rng));
  for (const p of parties) await p.register(hub.url);
  const clients = parties.map((p) => p.client(hub.url));
  const contracts: string[] = [SHARED];
  const owned = parties.map((_, i) => [`soak-own-${i}`]);
  await clients[0]!.push(SHARED, [parties[0]!.genesis(SHARED)]);
  for (const p of parties.slice(1)) await clients[0]!.grant(SHARED, p.identity, "writer");
  for (const [i, c] of clients.entries()) {
    await c.push(owned[i]![0]!, [parties[i]!.genesis(owned[i]![0]!)]);
    contracts.push(owned[i]![0]!);
  }

  const auditor = new Auditor();
  const errors: string[] = [];
  const counts: Record<string, number> = { create: 0, commit: 0, push: 0, conflict: 0, pull: 0, resubscribe: 0 };
  const latencies: number[] = [];
  const deadline = Date.now() + SECONDS * 1000;
  const rss: number[] = [];
  const unexpected = (what: string, err: unknown) => errors.push(`${what}: ${(err as Error).message}`);

  async function writer(i: number, r: Rng): Promise<void> {
    const client = clients[i]!;
    const party = parties[i]!;
    for (let op = 0; Date.now() < deadline; op++) {
      const roll = r.next();
      const mine = owned[i]!;
      try {
        if (roll < 0.05) {
          const id = `soak-${i}-${op}`;
          await client.createContract({ contract_id: id, model: null, rules: [] });
          mine.push(id);
          contracts.push(id);
          counts.create!++;
        } else if (roll < 0.5) {
          const id = r.pick(mine);
          const started = performance.now();
          await client.submitCommit(id, { method: "post", path: `/w${i}/n${op}.text`, value: `op ${op}` });
          latencies.push(performance.now() - started);
          counts.commit!++;
        } else {
          const id = r.next() < 0.5 ? SHARED : r.pick(mine);
          const head = (await client.getState(id)).head;
          await client.push(id, party.chain(id, head, r.int(1, 3), `w${i}o${op}`));
          counts.push!++;
        }
      } catch (err) {
        if (isContractError(err, "CONFLICT")) counts.conflict!++;
        else unexpected(`writer ${i}`, err);
      }
    }
  }

  async function reader(r: Rng, client: HubClient): Promise<void> {
    while (Date.now() < deadline) {
      const id = r.pick(contracts);
      const since = r.next() < 0.6 ? auditor.last(id) : undefined;
      try {
        const pulled = await client.pull(id, since ? { since } : {});
        if (since) auditor.since(id, since, pulled.head, pulled.commits);
        else auditor.full(id, pulled.head, pulled.commits);
        counts.pull!++;
      } catch (err) {
        unexpected("reader", err);
      }
    }
  }

  /** Subscribes to a few contracts from index 0, drops and resumes them at the next due index. */
  async function subscriber(r: Rng, socket: HubSocket, ids: string[], due: Map<string, number>): Promise<void> {
    const subs = new Map<string, string>();
    const subscribe = async (id: string) => {
      const handler = (e: { commit: { index: number; hash: string } }) => {
        auditor.event(id, e.commit.index, e.commit.hash, due.get(id)!);
        due.set(id, e.commit.index + 1);
      };
      subs.set(id, await socket.subscribe(id, handler, { since: due.get(id)! }));
    };
    for (const id of ids) await subscribe(id);
    while (Date.now() < deadline) {
      await sleep(r.int(500, 3000));
      const id = r.pick(ids);
      await socket.unsubscribe(subs.get(id)!);
      await subscribe(id);
      counts.resubscribe!++;
    }
  }

  const sampler = setInterval(() => rss.push(hub.rss()), 1000);
  const socket = await parties[0]!.client(hub.url).connect();
  const watched = [SHARED, owned[0]![0]!, owned[1]![0]!];
  const due = new Map(watched.map((id) => [id, 0]));
  try {
    await Promise.all([
      ...parties.map((_, i) => writer(i, rng.fork())),
      reader(rng.fork(), clients[0]!),
      reader(rng.fork(), parties[1]!.client(hub.url)),
      subscriber(rng.fork(), socket, watched, due),
    ]);
  } finally {
    clearInterval(sampler);
  }

  // Quiesced: every view must now agree with one final full pull, and every event must have arrived.
  for (const id of contracts) {
    const pulled = await clients[0]!.pull(id);
    auditor.full(id, pulled.head, pulled.commits);
  }
  for (let i = 0; i < 500 && watched.some((id) => due.get(id)! < auditor.seen.get(id)!.length); i++) await sleep(10);
  const missingEvents = watched.reduce((n, id) => n + auditor.seen.get(id)!.length - due.get(id)!, 0);
  socket.close();
  await hub.stop();

  const warm = rss[Math.min(rss.length - 1, Math.floor(rss.length / 10))] ?? Number.NaN;
  const last = rss[rss.length - 1] ?? Number.NaN;
  const ops = counts.create! + counts.commit! + counts.push! + counts.conflict! + counts.pull!;
  const figures = {
    seed,
    seconds: SECONDS,
    ...counts,
    events: auditor.events,
    opsPerSecond: Math.round(ops / SECONDS),
    commitMsP50: Math.round(percentile(latencies, 50)),
    commitMsP99: Math.round(percentile(latencies, 99)),
    missingEvents,
    inconsistencies: auditor.inconsistencies.length,
    errors: errors.length,
    rssWarmMiB: Math.round(warm / 2 ** 20),
    rssEndMiB: Math.round(last / 2 ** 20),
    rssMaxMiB: Math.round(Math.max(...rss) / 2 ** 20),
    rssDriftMiB: Math.round((last - warm) / 2 ** 20),
  };
  console.log(`[soak] figures ${JSON.stringify(figures)}`);
  assert.deepEqual(auditor.inconsistencies, [], `seed ${seed}`);
  assert.deepEqual(errors, [], `seed ${seed}`);
  assert.equal(missingEvents, 0, `seed ${seed}`);
  assert.ok(auditor.pulls > 0 && auditor.events > 0, "the soak exercised pulls and events");
});
