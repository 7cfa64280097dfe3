/**
 * The limits that absorb hostile load (docs/security.md): each identity's (each address's,
 * anonymously) budget of expensive work answers 429 RATE_LIMITED `work_budget` with
 * Retry-After once spent, without touching other callers; anonymous WebSocket connections
 * per address are capped (429 on the upgrade), and a connection that authenticates stops
 * counting against the cap; `--check-budget` sets the visits of one request's checks; the
 * subscriptions one caller holds over all its connections are capped (`--caller-subscriptions`,
 * HUB_CALLER_SUBSCRIPTIONS: -32029 `too_many_subscriptions`), and a bad value of the flag or
 * variable stops `start` with the usage code before it serves.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { WebSocket } from "ws";
import { signRequest, socketAuthParams } from "../../src/auth/signRequest.js";
import { EXIT_USAGE } from "../../src/cli/Io.js";
import { HubClient } from "../../src/client/HubClient.js";
import { HubSocket } from "../../src/client/HubSocket.js";
import type { ContractError } from "../../src/contract/ContractError.js";
import { BIN, killAll } from "../support/hubProcess.js";
import { cycleModel, heavyRules, report, STORES, startHostileHub } from "./support/hostileLoad.js";
import { Party } from "./support/party.js";
import { Rng } from "./support/seeded.js";

/** Opens an anonymous `/ws`; resolves with the socket once its hello arrived, or the refusal's status. */
function anonymousSocket(url: string): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once("message", () => resolve(ws));
  });
}

/** Every raw socket and `start` child of this file, ended whatever a test asserted (hubs: hostileLoad's hook). */
const sockets = new Set<WebSocket>();
const children = new Set<ChildProcess>();
after(async () => {
  for (const ws of sockets) ws.terminate();
  await killAll(children);
});

/** Rejects naming `what` when `promise` has not settled in 30 s: a silent hub fails the test, never hangs it. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} in 30 s`)), 30_000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A JSON-RPC answer over `/ws`, as the hub sent it. */
interface Answer {
  result?: { subscription?: string; unsubscribed?: boolean };
  error?: { code: number; data?: { code?: string; details?: Record<string, unknown> } };
}

/**
 * A raw `/ws` connection, anonymous or authenticated with `accessSeed`: answers keep their
 * numeric JSON-RPC code, and `events` counts the commit notifications of each subscription
 * the hub sent it (one it never granted would show up there).
 */
async function wire(url: string, accessSeed?: Uint8Array) {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
  sockets.add(ws);
  const pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  const events = new Map<string, number>();
  let next = 0;
  const hello = new Promise<string>((resolve, reject) => {
    ws.on("error", reject);
    ws.on("close", () => {
      reject(new Error("socket closed before its hello"));
      for (const p of pending.values()) p.reject(new Error("socket closed"));
    });
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if (msg.method === "hello") resolve(String(msg.params.challenge));
      else if (msg.method === "commit")
        events.set(msg.params.subscription, (events.get(msg.params.subscription) ?? 0) + 1);
      else if (typeof msg.id === "number") pending.get(msg.id)?.resolve(msg);
    });
  });
  const call = (method: string, params: Record<string, unknown>): Promise<Answer> => {
    const id = ++next;
    const answer = new Promise<Answer>((resolve, reject) => pending.set(id, { resolve, reject }));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return within(answer, `${method} over /ws`).finally(() => pending.delete(id));
  };
  const challenge = await within(hello, "the /ws hello");
  if (accessSeed)
    assert.deepEqual((await call("authenticate", socketAuthParams(accessSeed, challenge))).error, undefined);
  return { call, events };
}

type Wire = Awaited<ReturnType<typeof wire>>;

/** Subscribes once on `w`: the subscription id, or fails with the hub's error. */
async function subscribe(w: Wire, id: string): Promise<string> {
  const answer = await w.call("subscribe", { contract_id: id });
  assert.equal(typeof answer.result?.subscription, "string", `subscribe refused: ${JSON.stringify(answer.error)}`);
  return answer.result!.subscription!;
}

/** Asserts `w`'s next subscribe is refused by the caller's cap of `limit` in `scope`. */
async function assertCapped(w: Wire, id: string, scope: "address" | "identity", limit: number): Promise<void> {
  const answer = await w.call("subscribe", { contract_id: id });
  assert.equal(answer.result, undefined);
  assert.equal(answer.error?.code, -32029);
  assert.equal(answer.error?.data?.code, "RATE_LIMITED");
  assert.deepEqual(
    [answer.error?.data?.details?.reason, answer.error?.data?.details?.scope, answer.error?.data?.details?.limit],
    ["too_many_subscriptions", scope, limit],
  );
}

/**
 * Pushes two commits and waits until each subscription of `held` got both events (bounded):
 * the hub sends a socket's events in order, so an event of a subscription it never granted
 * would have come before them. Asserts each socket saw events of its held subscriptions only
 * (a subscription id names one subscription of one connection).
 */
async function assertOnlyHeld(client: HubClient, id: string, held: Array<[Wire, string]>, round: number) {
  for (const n of [1, 2])
    await client.submitCommit(id, { contract_id: id, method: "post", path: `/r${round}n${n}.text`, value: "v" });
  for (let i = 0; !held.every(([w, sub]) => (w.events.get(sub) ?? 0) >= 2); i++) {
    if (i > 3000) assert.fail(`events of ${held.length} subscriptions not all delivered in 30 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
  for (const w of new Set(held.map(([w]) => w))) {
    const mine = held.filter(([x]) => x === w).map(([, sub]) => sub);
    assert.deepEqual([...w.events.keys()].sort(), mine.sort());
  }
}

/** Runs `contract-hub start` expecting it to stop by itself: its exit code and stderr, or "served" if it started serving. */
function startRefusal(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | "served"; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "hostile-load-usage-"));
  const child = spawn(process.execPath, [BIN, "start", "--port", "0", "--no-rpc", "--data-dir", dir, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, HUB_LOG_LEVEL: "warn", ...env },
  });
  children.add(child);
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<number | "served">((resolve) => {
    child.once("exit", (code) => resolve(code ?? -1));
    // Accepted: it prints its address and serves; stop it at once rather than wait for the bound.
    child.stdout!.on("data", (d) => {
      if (/^REST\s/m.test(String(d))) {
        child.kill("SIGKILL");
        resolve("served");
      }
    });
  });
  return within(exited, `contract-hub start ${args.join(" ")}`)
    .then((code) => ({ code, stderr }))
    .finally(async () => {
      await killAll([child]);
      children.delete(child);
      rmSync(dir, { recursive: true, force: true });
    });
}

for (const kind of STORES) {
  describe(`hostile load: limits (${kind})`, { timeout: 300_000 }, () => {
    it("a spent work budget answers 429 work_budget with Retry-After, for that identity only", async () => {
      const hub = await startHostileHub(kind, ["--work-budget", "300"]);
      const rng = new Rng(5);
      const attacker = new Party(rng);
      const honest = new Party(rng);
      await attacker.register(hub.url);
      await honest.register(hub.url);
      const heavy = { model: cycleModel(3000), rules: heavyRules(20, 3000) };
      // The first heavy request runs (and is refused for its size): it spends far more than 300 ms.
      await assert.rejects(attacker.client(hub.url).createContract(heavy), (e: ContractError) => {
        return e.code === "VALIDATION_FAILED" && e.details?.reason === "check_budget";
      });
      const body = JSON.stringify({ ...heavy, rules: heavyRules(1, 3000) });
      const res = await fetch(`${hub.url}/contracts`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...signRequest(attacker.accessSeed, { method: "POST", url: "/contracts", body }),
        },
        body,
      });
      const refusal = (await res.json()) as { code: string; details: { reason: string; retry_after: number } };
      const retryAfter = Number(res.headers.get("retry-after"));
      // Others are not affected; cheap requests of the attacker neither.
      const other = await honest.client(hub.url).createContract({ model: cycleModel(50), rules: heavyRules(1, 50) });
      const cheap = await attacker.client(hub.url).createContract({ model: null, rules: [] });
      await hub.stop();
      report(`work-budget ${kind}`, { status: res.status, retryAfter });
      assert.equal(res.status, 429);
      assert.equal(refusal.code, "RATE_LIMITED");
      assert.equal(refusal.details.reason, "work_budget");
      assert.ok(retryAfter >= 1 && retryAfter === refusal.details.retry_after);
      assert.match(other.contract_id, /^c_/);
      assert.match(cheap.contract_id, /^c_/);
    });

    it("--check-budget sets the visits one request's checks may spend: past it 422 check_budget naming it", async () => {
      const hub = await startHostileHub(kind, ["--check-budget", "20000"]);
      const party = new Party(new Rng(7));
      await party.register(hub.url);
      const client = party.client(hub.url);
      // About 300² visits: within the default budget, over this hub's.
      const refused = await client.createContract({ model: cycleModel(300), rules: heavyRules(1, 300) }).then(
        () => null,
        (err: ContractError) => err,
      );
      const small = await client.createContract({ model: cycleModel(20), rules: heavyRules(1, 20) });
      await hub.stop();
      assert.equal(refused?.code, "VALIDATION_FAILED");
      assert.equal(refused?.details?.reason, "check_budget");
      assert.equal(refused?.details?.budget, 20_000);
      assert.match(small.contract_id, /^c_/);
    });

    it("anonymous sockets per address are capped; an authenticated one frees its place", async () => {
      const hub = await startHostileHub(kind, ["--anonymous-sockets", "3"]);
      const party = new Party(new Rng(6));
      await party.register(hub.url);
      const open = await Promise.all([1, 2, 3].map(() => anonymousSocket(hub.url)));
      assert.ok(open.every((s) => s instanceof WebSocket));
      assert.equal(await anonymousSocket(hub.url), 429);
      // HubSocket upgrades anonymously and then authenticates: it takes a place, then frees it.
      const first = open[0] as WebSocket;
      await new Promise((r) => {
        first.once("close", r);
        first.close();
      });
      // The hub frees the place when it sees the TCP connection close: retry briefly until it did.
      let authed: HubSocket | undefined;
      for (let i = 0; authed === undefined; i++) {
        authed = await HubSocket.connect(hub.url, party.accessSeed).catch((err) => {
          if (i > 100) throw err;
          return new Promise<undefined>((r) => setTimeout(() => r(undefined), 20));
        });
      }
      const fourth = await anonymousSocket(hub.url);
      assert.ok(fourth instanceof WebSocket, `expected a fourth anonymous socket, got ${String(fourth)}`);
      assert.equal(await anonymousSocket(hub.url), 429);
      authed.close();
      for (const s of [...open.slice(1), fourth]) (s as WebSocket).close();
      await hub.stop();
    });

    it("--caller-subscriptions 3: one address's and one identity's fourth subscribe over two connections is refused; an unsubscribe frees a place", async () => {
      const hub = await startHostileHub(kind, ["--caller-subscriptions", "3"]);
      const rng = new Rng(8);
      const owner = new Party(rng);
      const secondKey = rng.bytes(32);
      await owner.register(hub.url);
      await new HubClient({ url: hub.url, retries: 0 }).register(owner.seed, secondKey);
      const client = owner.client(hub.url);
      const { contract_id: id } = await client.createContract({ model: null, rules: [] });

      // Anonymous, one address: a connection on each port, counted together.
      const a = await wire(hub.url);
      const b = await wire(hub.rpcUrl);
      const anonymous: Array<[Wire, string]> = [
        [a, await subscribe(a, id)],
        [a, await subscribe(a, id)],
        [b, await subscribe(b, id)],
      ];
      await assertCapped(b, id, "address", 3);
      await assertCapped(a, id, "address", 3);
      await assertOnlyHeld(client, id, anonymous, 1);
      assert.deepEqual((await a.call("unsubscribe", { subscription: anonymous[0]![1] })).result, {
        unsubscribed: true,
      });
      await subscribe(b, id);
      await assertCapped(a, id, "address", 3);

      // One identity, two access keys, a connection each: its own three places, not the address's.
      const c = await wire(hub.url, owner.accessSeed);
      const d = await wire(hub.rpcUrl, secondKey);
      const identity: Array<[Wire, string]> = [
        [c, await subscribe(c, id)],
        [d, await subscribe(d, id)],
        [d, await subscribe(d, id)],
      ];
      await assertCapped(c, id, "identity", 3);
      await assertCapped(d, id, "identity", 3);
      await assertOnlyHeld(client, id, identity, 2);
      assert.deepEqual((await d.call("unsubscribe", { subscription: identity[2]![1] })).result, { unsubscribed: true });
      await subscribe(c, id);
      await assertCapped(d, id, "identity", 3);
      await assertCapped(a, id, "address", 3);
      await hub.stop();
    });
  });
}

describe("hostile load: the caller subscription cap from the environment, and bad values", { timeout: 300_000 }, () => {
  it("HUB_CALLER_SUBSCRIPTIONS=3 caps an address's subscriptions over two connections", async () => {
    const hub = await startHostileHub("sqlite", [], { HUB_CALLER_SUBSCRIPTIONS: "3" });
    const owner = new Party(new Rng(9));
    await owner.register(hub.url);
    const client = owner.client(hub.url);
    const { contract_id: id } = await client.createContract({ model: null, rules: [] });
    const a = await wire(hub.url);
    const b = await wire(hub.rpcUrl);
    const held: Array<[Wire, string]> = [
      [a, await subscribe(a, id)],
      [b, await subscribe(b, id)],
      [b, await subscribe(b, id)],
    ];
    await assertCapped(a, id, "address", 3);
    await assertOnlyHeld(client, id, held, 1);
    assert.deepEqual((await b.call("unsubscribe", { subscription: held[1]![1] })).result, { unsubscribed: true });
    await subscribe(a, id);
    await assertCapped(b, id, "address", 3);
    await hub.stop();
  });

  it("a bad --caller-subscriptions or HUB_CALLER_SUBSCRIPTIONS exits with the usage code, as --anonymous-sockets does", async () => {
    const runs: Array<[string[], Record<string, string>, string]> = [
      [["--anonymous-sockets", "-1"], {}, "--anonymous-sockets"],
      [["--caller-subscriptions", "-1"], {}, "--caller-subscriptions"],
      [["--caller-subscriptions", "abc"], {}, "--caller-subscriptions"],
      [["--caller-subscriptions", "1.5"], {}, "--caller-subscriptions"],
      [[], { HUB_CALLER_SUBSCRIPTIONS: "abc" }, "HUB_CALLER_SUBSCRIPTIONS"],
    ];
    for (const [args, env, named] of runs) {
      const { code, stderr } = await startRefusal(args, env);
      assert.equal(code, EXIT_USAGE, `${JSON.stringify([args, env])}: ${stderr}`);
      assert.ok(stderr.includes(named), `${named} not named: ${stderr}`);
    }
  });
});
