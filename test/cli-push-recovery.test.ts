/**
 * Pushes that cannot all go through, from the command line, every step a real process against
 * a real hub: RECVs the working copy can prove wrong are refused before they are written; a
 * push refused part-way records what the hub stored and names the refused commit; a diverged
 * copy and a reader without write access are told the way on that works; a hand-edited
 * commit file is refused by every command that reads the log.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";
import { type Answer, json, startTamperingProxy, type TamperingProxy } from "./support/tamperingProxy.js";

interface ErrorDoc {
  code: string;
  details?: Record<string, unknown>;
}
interface LogDoc {
  index: number;
  hash: string;
  method: string;
  timestamp: number;
}

let hub: HubProcess;
let base: string;
let treasury: Actor;
let vaultId: string;
let tillId: string;
let otherId: string;
const dir = (name: string) => join(treasury.root, name);

before(async () => {
  base = tempDir("push-recovery");
  hub = await startHubProcess(join(base, "hub-data"));
  treasury = new Actor("treasury", base, hub.url);
  treasury.publicKey = (await treasury.ok<{ public_key: string }>(["keygen", "--name", "t"])).public_key;
  await treasury.ok(["register"]);
  writeFileSync(
    join(treasury.root, "bank.modality"),
    "model bank {\n  initial open\n  open -> open [+CREATE]\n  open -> open [+SEND]\n  open -> open [+RECV]\n}\n",
  );
  const init = async (name: string) =>
    (await treasury.ok<{ contract_id: string }>(["init", name, "--model", "bank.modality"])).contract_id;
  vaultId = await init("vault");
  tillId = await init("till");
  otherId = await init("other");
});
let proxy: TamperingProxy | undefined;
after(async () => {
  await proxy?.close();
  await hub?.stop();
});

async function refused(args: string[], cwd: string, exit = 1): Promise<ErrorDoc> {
  const r = await treasury.run([...args, "--json"], cwd);
  assert.equal(r.code, exit, r.stdout + r.stderr);
  return r.json<ErrorDoc>();
}

async function send(to: string, amount: number): Promise<string> {
  const args = ["send", "--asset", "GOLD", "--to", to, "--amount", String(amount)];
  return (await treasury.ok<{ hash: string }>(args, dir("vault"))).hash;
}

async function hubLog(id: string): Promise<LogDoc[]> {
  const res = await fetch(`${hub.url}/contracts/${id}/log?limit=1000`);
  return ((await res.json()) as { commits: LogDoc[] }).commits;
}

describe("a RECV the working copy can prove wrong is refused before it is written", () => {
  it("refuses a second RECV by full hash, a RECV the hub has recorded, and a RECV of the copy's own SEND elsewhere", async () => {
    await treasury.ok(["create", "--asset", "GOLD", "--quantity", "100"], dir("vault"));
    const toTill = await send(tillId, 3);
    await treasury.ok(["push"], dir("vault"));
    // A second copy of the till, cloned before the first copy receives the SEND.
    await treasury.ok(["clone", `${hub.url}/${tillId}`, "till2"]);

    // (c) In the sending copy: its own log shows the SEND went to the till.
    const length = (await treasury.ok<LogDoc[]>(["log"], dir("vault"))).length;
    const wrong = await refused(["recv", "--send", toTill], dir("vault"));
    assert.deepEqual(
      [wrong.code, wrong.details?.reason, wrong.details?.to_contract],
      ["VALIDATION_FAILED", "wrong_recipient", tillId],
    );
    assert.equal((await treasury.ok<LogDoc[]>(["log"], dir("vault"))).length, length);

    // (a) The prefix form, then the full hash of the same SEND.
    const first = await treasury.ok<{ hash: string }>(["recv", "--send", toTill.slice(0, 8)], dir("till"));
    const twice = await refused(["recv", "--send", toTill], dir("till"));
    assert.deepEqual(
      [twice.code, twice.details?.reason, twice.details?.received_by],
      ["VALIDATION_FAILED", "already_received", first.hash],
    );
    await treasury.ok(["push"], dir("till"));

    // (b) Only the hub knows that the SEND was received.
    const onHub = await refused(["recv", "--send", toTill], dir("till2"));
    assert.deepEqual(
      [onHub.code, onHub.details?.reason, onHub.details?.received_by],
      ["VALIDATION_FAILED", "already_received", first.hash],
    );
    assert.equal((await treasury.ok<{ ahead: number }>(["status"], dir("till2"))).ahead, 0);
  });
});

describe("a push refused part-way", () => {
  it("records the requests the hub stored (origin, hub timestamps) and names the refused commit", async () => {
    // A SEND to another contract: the till's copy cannot know that it is not the recipient.
    const elsewhere = await send(otherId, 2);
    await treasury.ok(["push"], dir("vault"));
    const till = dir("till");
    const before = (await treasury.ok<LogDoc[]>(["log"], till)).length;
    await treasury.ok(["create", "--asset", "X", "--quantity", "1"], till);
    await treasury.ok(["create", "--asset", "Y", "--quantity", "1"], till);
    const bad = await treasury.ok<{ hash: string; index: number }>(["recv", "--send", elsewhere], till);
    await treasury.ok(["create", "--asset", "Z", "--quantity", "1"], till);

    const push = await refused(["push", "--batch-size", "1"], till);
    assert.deepEqual([push.code, push.details?.reason], ["VALIDATION_FAILED", "wrong_recipient"]);
    assert.equal(push.details?.pushed, 2);
    assert.deepEqual(push.details?.refused, { index: bad.index, hash: bad.hash });

    const origin = JSON.parse(readFileSync(join(till, ".contract", "origin.json"), "utf8"));
    const onHub = await hubLog(tillId);
    assert.equal(onHub.length, before + 2);
    assert.deepEqual(origin, { head: onHub.at(-1)!.hash, length: before + 2 });
    const status = await treasury.ok<{ ahead: number; behind: number; hub_head: string }>(["status"], till);
    assert.deepEqual([status.ahead, status.behind], [2, 0]);
    // The stored commits carry the hub's receipt times, as after a successful push.
    const local = await treasury.ok<LogDoc[]>(["log"], till);
    assert.deepEqual(
      local.slice(0, before + 2).map((e) => [e.hash, e.timestamp]),
      onHub.map((e) => [e.hash, e.timestamp]),
    );
    const diff = await treasury.ok<{ local_only: LogDoc[]; remote_only: LogDoc[] }>(["diff"], till);
    assert.deepEqual(
      diff.local_only.map((e) => e.index),
      [bad.index, bad.index + 1],
    );
    assert.deepEqual(diff.remote_only, []);

    // In one request of several commits, the refused one is still named (the RECV of that SEND).
    const whole = await refused(["push"], till);
    assert.equal(whole.details?.pushed, 0);
    assert.deepEqual(whole.details?.refused, { index: bad.index, hash: bad.hash });
    await treasury.ok(["reset", "--hard", "origin"], till);
  });

  it("takes the refused commit from the hub's commit_index and commit_hash, and guesses only for a hub without them", async () => {
    const vault = dir("vault");
    // Two SENDs in one request; the hub refuses the second (its recipient does not exist; sent
    // --offline, since send refuses a destination the hub does not show), which neither the
    // message nor the kind of operation singles out.
    const first = await treasury.ok<{ hash: string; index: number }>(
      ["send", "--asset", "GOLD", "--to", tillId, "--amount", "1"],
      vault,
    );
    const second = await treasury.ok<{ hash: string; index: number }>(
      ["send", "--asset", "GOLD", "--to", "nowhere", "--amount", "1", "--offline"],
      vault,
    );
    const named = await refused(["push"], vault);
    assert.deepEqual(
      [named.code, named.details?.reason, named.details?.commit_index, named.details?.commit_hash],
      ["VALIDATION_FAILED", "recipient_not_found", second.index, second.hash],
    );
    assert.deepEqual(named.details?.refused, { index: second.index, hash: second.hash });

    proxy = await startTamperingProxy(hub.url);
    const push = `/contracts/${vaultId}/push`;
    /** The hub's refusal of the push with its details rewritten by `edit`. */
    const rewriting =
      (edit: (details: Record<string, unknown>) => void) =>
      (path: string, up: Answer): Answer => {
        if (path !== push || up.status < 400) return up;
        const body = JSON.parse(up.body) as { details: Record<string, unknown> };
        edit(body.details);
        return json(up.status, body);
      };
    // A hub that names the refused commit while its refusal also names another commit of the
    // request (as a RECV's refusal names its SEND): the commit it names as refused is reported.
    proxy.rule = rewriting((d) => {
      d.send_commit_id = first.hash;
    });
    const byHub = await refused(["push", "--hub", proxy.url], vault);
    assert.deepEqual(byHub.details?.refused, { index: second.index, hash: second.hash });
    // An older hub, which names no commit: the guess cannot tell the two SENDs apart.
    proxy.rule = rewriting((d) => {
      delete d.commit_index;
      delete d.commit_hash;
    });
    const older = await refused(["push", "--hub", proxy.url], vault);
    assert.deepEqual(
      [older.details?.refused, older.details?.refused_among],
      [undefined, { from: first.index, to: second.index }],
    );
    await treasury.ok(["reset", "--hard", "origin"], vault);
  });

  it("a diverged copy is told to reset, not to pull; a reader is told how to get write access", async () => {
    const till = dir("till");
    await treasury.ok(["pull"], dir("till2"));
    await treasury.ok(["create", "--asset", "A1", "--quantity", "1"], till);
    await treasury.ok(["push"], till);
    await treasury.ok(["create", "--asset", "A2", "--quantity", "1"], dir("till2"));
    const push = await refused(["push"], dir("till2"));
    assert.deepEqual([push.code, push.details?.diverged], ["CONFLICT", true]);
    assert.match(String(push.details?.hint), /reset --hard origin/);
    const pull = await refused(["pull"], dir("till2"));
    assert.deepEqual([pull.code, pull.details?.reason], ["CONFLICT", "diverged"]);

    // Another key, registered, without write access to the till: the hint names the grant.
    const clerk = new Actor("clerk", base, hub.url);
    clerk.publicKey = (await clerk.ok<{ public_key: string }>(["keygen", "--name", "c"])).public_key;
    await clerk.ok(["register"]);
    await clerk.ok(["clone", `${hub.url}/${tillId}`, "till"]);
    await clerk.ok(["create", "--asset", "C", "--quantity", "1"], join(clerk.root, "till"));
    const r = await clerk.run(["push", "--json"], join(clerk.root, "till"));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const forbidden = r.json<ErrorDoc>();
    assert.deepEqual([forbidden.code, forbidden.details?.reason], ["FORBIDDEN", "not_a_writer"]);
    assert.match(String(forbidden.details?.hint), new RegExp(`grant ${clerk.publicKey} --role writer`));
  });
});

describe("a push refused for the caller or the hub, not for a commit", () => {
  it("names no refused commit and does not tell the person to drop their commits", async () => {
    const boxId = (await treasury.ok<{ contract_id: string }>(["init", "box", "--model", "bank.modality"])).contract_id;
    // A key the hub does not know: it may clone the public contract and commit, not push.
    const stranger = new Actor("stranger", base, hub.url);
    stranger.publicKey = (await stranger.ok<{ public_key: string }>(["keygen", "--name", "s"])).public_key;
    await stranger.ok(["clone", `${hub.url}/${boxId}`, "box"]);
    const box = join(stranger.root, "box");
    const made = await stranger.ok<{ hash: string }>(["create", "--asset", "S", "--quantity", "1"], box);
    const notAsCommit = (e: ErrorDoc) => [
      e.details?.refused,
      e.details?.refused_among,
      /reset --hard/.test(String(e.details?.hint)),
    ];

    const r = await stranger.run(["push", "--json"], box);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const unknown = r.json<ErrorDoc>();
    assert.deepEqual([unknown.code, unknown.details?.reason], ["UNAUTHORIZED", "unknown_key"]);
    assert.deepEqual(notAsCommit(unknown), [undefined, undefined, false]);

    // The hub out of breath (429), through a proxy: again the request, not the commit. (The
    // proxy forwards first; the hub refuses the unknown key, so nothing is stored meanwhile.)
    proxy ??= await startTamperingProxy(hub.url);
    proxy.rule = (path, up) =>
      path === `/contracts/${boxId}/push`
        ? json(429, { error: "Too many requests", code: "RATE_LIMITED", details: { retry_after: 1 } })
        : up;
    const limited = await stranger.run(["push", "--hub", proxy.url, "--json"], box);
    assert.equal(limited.code, 1, limited.stdout + limited.stderr);
    const busy = limited.json<ErrorDoc>();
    assert.equal(busy.code, "RATE_LIMITED");
    assert.deepEqual(notAsCommit(busy), [undefined, undefined, false]);
    proxy.rule = null;

    // The same commit goes through once the caller may push it.
    await stranger.ok(["register"]);
    await treasury.ok(["grant", stranger.publicKey, "--role", "writer"], dir("box"));
    const pushed = await stranger.ok<{ pushed: number; head: string }>(["push"], box);
    assert.deepEqual([pushed.pushed, pushed.head], [1, made.hash]);
  });
});

describe("a hand-edited commit file", () => {
  it("is refused as CORRUPTED, with the repair, by every command that reads the log", async () => {
    await treasury.ok(["clone", `${hub.url}/${vaultId}`, "vault3"]);
    const file = join(dir("vault3"), ".contract", "commits", "0000000001.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"quantity": 100', '"quantity": 1000'));
    for (const args of [["log"], ["diff"], ["push"], ["status"], ["pull"], ["balances"], ["incoming"]]) {
      const e = await refused(args, dir("vault3"));
      assert.deepEqual(
        [args[0], e.code, e.details?.index, e.details?.repair],
        [args[0], "CORRUPTED", 1, "contract-hub reset --hard origin"],
      );
    }
    const reset = await treasury.ok<{ rebuilt: boolean }>(["reset", "--hard", "origin"], dir("vault3"));
    assert.equal(reset.rebuilt, true);
    assert.equal((await treasury.ok<LogDoc[]>(["log"], dir("vault3"))).length, (await hubLog(vaultId)).length);
  });
});
