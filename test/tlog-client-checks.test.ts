/**
 * The SDK's checkHubLog against a real hub that does not wait for witnesses, seen through a
 * lying proxy: every field of a proof answer is checked before use (a malformed answer is
 * the failed check by name, never INTERNAL); "the head is newer than the checkpoint" is not
 * believed from a hub whose checkpoint carries no cosignature, nor when it contradicts what
 * the client knows (the leaf the hub gave before, the checkpoint's size); and pinned
 * witnesses without a quorum require all of them.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { checkHubLog, type PinnedLogKey, type VerifiedCheckpoint } from "../src/client/checkHubLog.js";
import { HubClient } from "../src/client/HubClient.js";
import { ContractError } from "../src/contract/ContractError.js";
import { witnessVerifierKey } from "../src/tlog/cosignature.js";
import { tempDir } from "./cli-support.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { Writer } from "./support/pgHubs.js";
import { type Answer, json, startTamperingProxy, type TamperingProxy } from "./support/tamperingProxy.js";

let hub: HubProcess;
let proxy: TamperingProxy;
let pinned: PinnedLogKey;
let client: HubClient;
/** The last commit pushed, and the leaf the hub gave it. */
let head: { hash: string; leaf: number };

/** Pushes a new contract of `n` commits; returns its head and the head's leaf index (from the pull). */
async function push(n: number): Promise<{ hash: string; leaf: number }> {
  const w = new Writer();
  const c = new HubClient({ url: hub.url, accessKey: w.seed });
  await c.register(w.seed, w.seed);
  const id = `c${randomBytes(6).toString("hex")}`;
  const g = w.genesis(id);
  const commits = [g, ...w.chain(id, g.hash, n - 1)];
  await c.push(id, commits);
  const pulled = await c.pull(id);
  const last = pulled.commits.at(-1)!;
  return { hash: last.hash, leaf: last.leaf_index! };
}

/** The CORRUPTED error's details, or a failure when the check did not throw one. */
async function refusal(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    assert.equal(err.code, "CORRUPTED", err.message);
    return err.details ?? {};
  }
  assert.fail("the check passed");
}

/** Rewrites the JSON body of `route`'s successful answers. */
const rewrite =
  (route: string, edit: (body: Record<string, unknown>) => unknown) =>
  (path: string, up: Answer): Answer =>
    path === route && up.status === 200 ? json(200, edit(JSON.parse(up.body))) : up;

before(async () => {
  hub = await startHub(join(tempDir("client-checks"), "hub"));
  proxy = await startTamperingProxy(hub.url);
  client = new HubClient({ url: proxy.url });
  const key = await client.checkpointKey();
  pinned = { origin: key.origin, public_key: key.public_key };
  await push(2);
  head = await push(3);
});
beforeEach(() => {
  proxy.rule = null;
});
after(async () => {
  await proxy.close();
  await killAllHubs();
});

describe("checkHubLog checks every field the hub answers", () => {
  it("proves the head through the faithful proxy", async () => {
    const cp = await checkHubLog(client, pinned, null, head.hash, { headLeafIndex: head.leaf });
    assert.deepEqual([cp.size, cp.head_pending], [5, undefined]);
  });

  it("names the inclusion check for a malformed inclusion answer", async () => {
    const bad: ((b: Record<string, unknown>) => unknown)[] = [
      (b) => ({ ...b, proof: "abc" }),
      (b) => ({ ...b, proof: [42] }),
      (b) => ({ ...b, proof: ["zz"] }),
      (b) => ({ ...b, leaf_index: "0" }),
      (b) => ({ ...b, leaf_index: -1 }),
      (b) => ({ ...b, tree_size: undefined }),
      (b) => ({ ...b, tree_size: 4 }),
      () => "a proof",
      () => null,
    ];
    for (const edit of bad) {
      proxy.rule = rewrite("/proofs/inclusion", edit);
      const d = await refusal(checkHubLog(client, pinned, null, head.hash));
      assert.deepEqual([d.reason, d.check, d.head], ["log_inclusion", "inclusion", head.hash], String(edit));
    }
  });

  it("names the fork check for a malformed consistency answer", async () => {
    proxy.rule = null;
    const kept = await checkHubLog(client, pinned, null, null);
    await push(1);
    const bad: ((b: Record<string, unknown>) => unknown)[] = [
      (b) => ({ ...b, proof: "abc" }),
      (b) => ({ ...b, proof: [null] }),
      (b) => ({ ...b, from: 1 }),
      (b) => ({ ...b, to: "6" }),
      () => [],
    ];
    for (const edit of bad) {
      proxy.rule = rewrite("/proofs/consistency", edit);
      const d = await refusal(checkHubLog(client, pinned, kept, null));
      assert.deepEqual([d.reason, d.kept_size, d.hub_size], ["log_fork", kept.size, kept.size + 1], String(edit));
    }
    proxy.rule = null;
    head = await push(1);
    assert.equal((await checkHubLog(client, pinned, kept, head.hash)).size, kept.size + 2);
  });

  it("refuses 'the head is newer than the checkpoint' from a checkpoint without cosignatures", async () => {
    const dodge = (leaf: number) => (path: string, up: Answer) =>
      path === "/proofs/inclusion"
        ? json(400, { error: "later", code: "INVALID_REQUEST", details: { reason: "tree_size", leaf_index: leaf } })
        : up;
    const kept = await checkHubLog(client, pinned, null, null);
    for (const leaf of [1e9, kept.size, head.leaf]) {
      proxy.rule = dodge(leaf);
      const d = await refusal(checkHubLog(client, pinned, kept, head.hash, { headWaitMs: 300 }));
      assert.deepEqual([d.reason, d.head, d.leaf_index, d.hub_size], ["log_inclusion", head.hash, leaf, kept.size]);
    }
    // An answer that names no leaf is no excuse either.
    proxy.rule = (path, up) =>
      path === "/proofs/inclusion"
        ? json(400, { error: "no", code: "INVALID_REQUEST", details: { leaf_index: "9" } })
        : up;
    assert.equal((await refusal(checkHubLog(client, pinned, kept, head.hash))).reason, "log_inclusion");
  });

  it("refuses a proof of another leaf than the one the hub gave before", async () => {
    const d = await refusal(checkHubLog(client, pinned, null, head.hash, { headLeafIndex: head.leaf - 1 }));
    assert.deepEqual([d.reason, d.leaf_index], ["log_inclusion", head.leaf]);
  });

  it("refuses a checkpoint that is not a strict signed note, with a valid signature or not", async () => {
    const edits: ((note: string) => string)[] = [
      (n) => `${n.slice(0, -1)}\r\n`,
      (n) => n.replace(/ (\S+)\n$/, " !$1\n"),
      (n) => `${n}\u2014 witness.test/w \n`,
      // A truncated "signature" under the log key's name and id before the real one.
      (n) => {
        const [body, line] = n.split("\n\n") as [string, string];
        const id = Buffer.from(line.split(" ")[2]!, "base64").subarray(0, 4);
        return `${body}\n\n\u2014 ${pinned.origin} ${Buffer.concat([id, Buffer.alloc(8)]).toString("base64")}\n${line}`;
      },
    ];
    // Bytes that are not UTF-8 (in another key's line, which a lenient decoder would make U+FFFD), a byte order mark.
    const bytes: ((note: string) => Buffer)[] = [
      (n) => Buffer.concat([Buffer.from(n), Buffer.from("\u2014 w"), Buffer.from([0xff]), Buffer.from(" AAAAAAAA\n")]),
      (n) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(n)]),
    ];
    const rules = [
      ...edits.map((edit) => (up: Answer) => ({ ...up, body: edit(up.body) })),
      ...bytes.map((edit) => (up: Answer) => ({ ...up, bytes: edit(up.body) })),
    ];
    for (const rule of rules) {
      proxy.rule = (path, up) => (path === "/checkpoint" && up.status === 200 ? rule(up) : up);
      const d = await refusal(checkHubLog(client, pinned, null, head.hash));
      assert.deepEqual([d.reason, d.check, d.hub_size], ["log_signature", "signature", null], String(rule));
    }
  });

  it("requires every pinned witness when no quorum is given", async () => {
    const witness = witnessVerifierKey({ name: "witness.test/absent", publicKey: randomBytes(32) });
    const d = await refusal(checkHubLog(client, { ...pinned, witnesses: [witness] }, null, null));
    assert.equal(d.reason, "log_witness");
    const some: VerifiedCheckpoint = await checkHubLog(
      client,
      { ...pinned, witnesses: [witness], witness_quorum: 0 },
      null,
      null,
    );
    assert.equal(some.head_pending, undefined, "an explicit quorum of 0 asks for none");
  });
});
