/**
 * The command line in process, through `main([...], io)`: exit codes (0 ok, 1 refused or
 * failed, 2 usage), key choice, the key directory's permissions, and local commits in a
 * working copy made offline (no hub needed to commit, refuse, log or reset).
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type CliIo, cliOf, progressBar } from "../src/cli/cliContext.js";
import { KeyStore } from "../src/cli/KeyStore.js";
import { main } from "../src/cli/main.js";
import { acceptPulled } from "../src/cli/workingCopy/localLog.js";
import { WorkingCopy } from "../src/cli/workingCopy/WorkingCopy.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { genesisData } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { openStore } from "../src/store/openStore.js";
import { instantiateTemplate } from "../src/templates/instantiateTemplate.js";
import { verifierKey } from "../src/tlog/checkpoint.js";
import { tempDir } from "./cli-support.js";

/** A hub address nothing listens on (connections are refused at once). */
const DEAD_HUB = "http://127.0.0.1:1";

interface Captured {
  io: CliIo;
  out: string[];
  err: string[];
}

function capture(home: string, cwd: string, env: Record<string, string> = {}): Captured {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: { CONTRACT_HUB_HOME: home, ...env },
    cwd,
    errIsTTY: false,
  };
  return { io, out, err };
}

/** Runs the command line; returns the exit code and the --json document when one was printed. */
async function run(c: Captured, args: string[]): Promise<{ code: number; doc: Record<string, unknown> }> {
  c.out.length = 0;
  c.err.length = 0;
  const code = await main(args, c.io);
  const text = c.out.join("");
  let doc: Record<string, unknown> = {};
  try {
    doc = JSON.parse(text);
  } catch {
    // Human output: no document.
  }
  return { code, doc };
}

/** A fresh key directory with the named keys, and a folder to work in. */
function setup(...names: string[]): { home: string; root: string; keys: KeyStore } {
  const base = tempDir("usage");
  const home = join(base, "home");
  const root = join(base, "work");
  mkdirSync(root, { recursive: true });
  const keys = new KeyStore(join(home, "keys"));
  for (const n of names) keys.generate(n);
  return { home, root, keys };
}

/** An escrow working copy made without a hub: its genesis accepted locally and written as if pulled. */
async function offlineEscrow(keys: KeyStore, root: string, remembered?: string): Promise<string> {
  const buyer = keys.get("buyer");
  const seller = keys.get("seller");
  const t = instantiateTemplate("escrow", { buyer: buyer.publicKey, seller: seller.publicKey });
  const id = "c_offline";
  const genesis = buildWireCommit(
    id,
    null,
    genesisData({ model: t.model, rules: t.rules, owner: buyer.publicKey, state: t.state }),
  );
  const { log } = await acceptPulled(id, [], [{ ...genesis, body: genesis.data, timestamp: 1_700_000_000 }]);
  WorkingCopy.create(root, { hub: DEAD_HUB, contract_id: id, ...(remembered ? { key: remembered } : {}) }, log);
  return id;
}

describe("keys", () => {
  it("keygen writes a 0600 file in a 0700 directory and refuses to overwrite it", async () => {
    const { home, root } = setup();
    const c = capture(home, root);
    const r = await run(c, ["keygen", "--name", "alice", "--json"]);
    assert.equal(r.code, 0);
    assert.equal(r.doc.name, "alice");
    assert.match(String(r.doc.public_key), /^[0-9a-f]{64}$/);
    const dir = join(home, "keys");
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, "alice.json")).mode & 0o777, 0o600);
    const again = await run(c, ["keygen", "--name", "alice", "--json"]);
    assert.equal(again.code, 1);
    assert.equal(again.doc.code, "CONFLICT");
    assert.equal((await run(c, ["keygen", "--name", "../evil"])).code, 2);
    assert.deepEqual(readdirSync(dir), ["alice.json"]);
  });

  it("keys lists names and public keys, never seeds", async () => {
    const { home, root, keys } = setup("bob", "alice");
    const c = capture(home, root);
    const r = await run(c, ["keys", "--json"]);
    assert.equal(r.code, 0);
    const list = r.doc as unknown as Record<string, unknown>[];
    assert.deepEqual(
      list.map((k) => k.name),
      ["alice", "bob"],
    );
    assert.equal(list[0]!.public_key, keys.get("alice").publicKey);
    assert.ok(list.every((k) => !("seed" in k)));
  });

  it("a writing command with several keys and none chosen is a usage error; --key picks one", async () => {
    const { home, root } = setup("alice", "bob");
    const c = capture(home, root);
    assert.equal((await run(c, ["register", "--hub", DEAD_HUB])).code, 2);
    // With a key chosen the command gets as far as the (unreachable) hub: a failure, not a usage error.
    const r = await run(c, ["register", "--hub", DEAD_HUB, "--key", "bob", "--json"]);
    assert.equal(r.code, 1);
    assert.equal(r.doc.code, "UNAVAILABLE");
    assert.equal((await run(c, ["register", "--hub", DEAD_HUB, "--key", "carol"])).code, 2);
  });

  it("a writing command without a hub is a usage error; HUB_URL supplies one", async () => {
    const { home, root } = setup("alice");
    assert.equal((await run(capture(home, root), ["register"])).code, 2);
    assert.equal((await run(capture(home, root), ["register", "--hub", "ftp://x"])).code, 2);
    assert.equal((await run(capture(home, root, { HUB_URL: DEAD_HUB }), ["register"])).code, 1);
  });
});

describe("usage errors (exit 2)", () => {
  const cases: [string, string[]][] = [
    ["unknown option", ["status", "--bogus"]],
    ["status outside a working copy", ["status", "--offline"]],
    ["commit outside a working copy", ["commit", "--action", "DEPOSIT"]],
    ["init without a template or model", ["init", "--hub", DEAD_HUB]],
    ["init with both template and model", ["init", "--hub", DEAD_HUB, "--template", "escrow", "--model", "m"]],
    ["init with a malformed --param", ["init", "--hub", DEAD_HUB, "--template", "escrow", "--param", "buyer"]],
    ["init with an unknown template parameter", ["init", "--hub", DEAD_HUB, "--template", "escrow", "--param", "x=1"]],
    ["init with a party that is no key", ["init", "--hub", DEAD_HUB, "--model", "m", "--party", "buyer=nobody"]],
    ["clone without a contract id", ["clone", "not-a-url"]],
    ["grant with an unknown role", ["grant", "alice", "--role", "admin", "--contract", "c1", "--hub", DEAD_HUB]],
    ["verify of a missing store", ["verify", "--data-dir", "/nonexistent/contract-hub"]],
    ["verify outside a working copy", ["verify"]],
    ["reset without --hard", ["reset", "origin"]],
  ];
  for (const [what, args] of cases) {
    it(what, async () => {
      const { home, root } = setup("alice");
      const r = await run(capture(home, root), [...args]);
      assert.equal(r.code, 2);
    });
  }

  it("init with a --param or --party name given twice: the later one is not silently taken", async () => {
    // A template contract cannot change its parties later: a buyer typed twice (the second by
    // mistake) must not become a contract with the other key as the buyer.
    const { home, root } = setup("alice", "bob", "carol");
    writeFileSync(join(root, "m.model"), "model m {\n  initial a\n  a -> a []\n}\n");
    const c = capture(home, root);
    for (const [args, option, name] of [
      [
        ["--template", "escrow", "--param", "buyer=alice", "--param", "seller=bob", "--param", "buyer=carol"],
        "--param",
        "buyer",
      ],
      [["--model", "m.model", "--party", "buyer=alice", "--party", "buyer=bob"], "--party", "buyer"],
    ] as const) {
      const r = await run(c, ["init", "--hub", DEAD_HUB, "--key", "alice", "--json", ...args]);
      assert.equal(r.code, 2, JSON.stringify(r.doc));
      assert.equal(r.doc.code, "USAGE");
      assert.deepEqual(r.doc.details, { reason: "repeated_name", option, name });
    }
  });

  it("verify of a store with --remote or --hub, which only a working copy's check uses", async () => {
    const { home, root } = setup("alice");
    const dataDir = join(root, "hub-data");
    await (await openStore({ dataDir, databaseUrl: null })).close();
    const c = capture(home, root);
    assert.equal((await run(c, ["verify", "--data-dir", dataDir])).code, 0);
    assert.equal((await run(c, ["verify", "--data-dir", dataDir, "--remote"])).code, 2);
    assert.equal((await run(c, ["verify", "--data-dir", dataDir, "--hub", DEAD_HUB])).code, 2);
  });

  it("prints a JSON error document with --json", async () => {
    const { home, root } = setup("alice");
    const r = await run(capture(home, root), ["status", "--offline", "--json"]);
    assert.equal(r.code, 2);
    assert.equal(r.doc.code, "USAGE");
  });

  it("witness --once --json prints the JSON error document of its usage errors too", async () => {
    const { home, root } = setup("alice");
    const c = capture(home, root);
    for (const args of [
      ["witness", "--once", "--json"],
      ["witness", "--log", "nonsense", "--once", "--json"],
    ]) {
      const r = await run(c, args);
      assert.equal(r.code, 2);
      assert.equal(r.doc.code, "USAGE");
    }
  });

  it("witness with two keys for one log: refused, not the last one silently trusted", async () => {
    const { home, root } = setup("alice");
    const c = capture(home, root);
    const [a, b] = [generateKeyPair().publicKey, generateKeyPair().publicKey];
    const log = (key: Buffer) => verifierKey("log.test/one", key);
    const r = await run(c, ["witness", "--log", log(a), "--log", log(b), "--follow", DEAD_HUB, "--once", "--json"]);
    assert.equal(r.code, 2, JSON.stringify(r.doc));
    assert.equal(r.doc.code, "USAGE");
    // The same log named twice is one log.
    const same = await run(c, ["witness", "--log", log(a), "--log", log(a), "--follow", DEAD_HUB, "--once", "--json"]);
    assert.equal(same.code, 1, JSON.stringify(same.doc));
    // Its default data folder is ./witness of the command's own working directory.
    assert.ok(statSync(join(root, "witness", "witness-key.json")).isFile());
  });
});

describe("an offline working copy", () => {
  it("commits made at the same time are all kept, one after the other", async () => {
    const { home, root, keys } = setup("buyer");
    // A model that takes any commit, so that all three are valid on any head.
    const id = "c_offline_open";
    const genesis = buildWireCommit(
      id,
      null,
      genesisData({
        model: "model open {\n  initial open\n  open -> open []\n}\n",
        rules: [],
        owner: keys.get("buyer").publicKey,
        state: {},
      }),
    );
    const { log: first } = await acceptPulled(id, [], [{ ...genesis, body: genesis.data, timestamp: 1_700_000_000 }]);
    WorkingCopy.create(root, { hub: DEAD_HUB, contract_id: id }, first);
    const c = capture(home, root);
    const runs = await Promise.all(
      ["a", "b", "c"].map((v) =>
        run(capture(home, root), ["commit", "--post", `/notes/${v}.text`, v, "--key", "buyer", "--json"]),
      ),
    );
    const committed = runs.filter((r) => r.code === 0).map((r) => r.doc.hash);
    const log = (await run(c, ["log", "--json"])).doc as unknown as { hash: string }[];
    // Each reported commit is in the log, at its own index.
    for (const hash of committed)
      assert.ok(
        log.some((e) => e.hash === hash),
        `commit ${hash} was lost`,
      );
    assert.equal(new Set(runs.filter((r) => r.code === 0).map((r) => r.doc.index)).size, committed.length);
  });

  it("a lock left by a process that is gone does not stop the next command", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root);
    writeFileSync(join(root, ".contract", "lock"), "4294967294\n");
    const r = await run(capture(home, root), ["commit", "--action", "DEPOSIT", "--key", "buyer", "--json"]);
    assert.equal(r.code, 0);
  });

  it("status with the hub unreachable is UNAVAILABLE with a hint, and --offline answers", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root);
    const c = capture(home, root);
    const r = await run(c, ["status", "--json"]);
    assert.equal(r.code, 1);
    assert.equal(r.doc.code, "UNAVAILABLE");
    assert.equal(typeof (r.doc.details as Record<string, unknown>).hint, "string");
    assert.equal((await run(c, ["status", "--offline", "--json"])).code, 0);
  });

  it("commit --rule with a file whose name is no path segment is a usage error naming --rule-name", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root);
    const c = capture(home, root);
    const rule = join(root, "my rule.modality");
    writeFileSync(rule, "export default rule {\n  starting_at $PARENT\n  formula { always(true) }\n}\n");
    const r = await run(c, ["commit", "--rule", rule, "--key", "buyer", "--json"]);
    assert.equal(r.code, 2);
    assert.equal(r.doc.code, "USAGE");
    assert.equal(
      (await run(c, ["commit", "--rule", rule, "--rule-name", "my rule", "--key", "buyer", "--json"])).code,
      2,
    );
    // Named by --rule-name, the rule reaches the engine (which refuses it here: no transition adds rules).
    const named = await run(c, ["commit", "--rule", rule, "--rule-name", "my_rule", "--key", "buyer", "--json"]);
    assert.equal(named.code, 1);
    assert.equal(named.doc.code, "VALIDATION_FAILED");
  });

  it("commit --model and --rule name the file and its line on a syntax error, as init does", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root);
    const c = capture(home, root);
    const bad = join(root, "bad model.modality");
    writeFileSync(bad, "model m {\n  a => b\n}\n");
    for (const flag of ["--model", "--rule"]) {
      const named = flag === "--rule" ? ["--rule-name", "r"] : [];
      const r = await run(c, ["commit", flag, bad, ...named, "--key", "buyer", "--json"]);
      assert.equal(r.code, 1);
      const d = r.doc.details as Record<string, unknown>;
      assert.deepEqual([r.doc.code, d.reason, d.file, d.line], ["VALIDATION_FAILED", "parse_error", bad, 2]);
    }
  });

  it("log names signers by their local key name, and an unreadable key file does not stop it", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root);
    const c = capture(home, root);
    assert.equal((await run(c, ["commit", "--action", "DEPOSIT", "--key", "buyer"])).code, 0);
    writeFileSync(join(home, "keys", "broken.json"), "{not json");
    assert.equal((await run(c, ["log"])).code, 0, c.err.join(""));
    assert.match(c.out.join(""), /^ {3}1 [0-9a-f]{12} action \[DEPOSIT\] by buyer {2}\(not pushed\)$/m);
  });

  it("commits what the engine accepts and refuses the rest with its reasons", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root);
    const c = capture(home, root);
    // Two keys, none remembered, none named default: the signer must be chosen.
    assert.equal((await run(c, ["commit", "--action", "DEPOSIT"])).code, 2);
    const wrong = await run(c, ["commit", "--action", "DEPOSIT", "--sign", "seller", "--json"]);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.doc.code, "VALIDATION_FAILED");
    const details = wrong.doc.details as { candidates: { failed: { property: string }[] }[] };
    assert.ok(details.candidates[0]!.failed.some((f) => f.property.includes("signed_by(/users/buyer.id)")));
    // A post rides along with the action (the template's transitions allow it); .json values are parsed.
    const args = ["commit", "--post", "/terms/extra.json", '{"a":1}', "--action", "DEPOSIT", "--key", "buyer"];
    const ok = await run(c, [...args, "--json"]);
    assert.equal(ok.code, 0, JSON.stringify(ok.doc));
    assert.equal(ok.doc.index, 1);
    assert.equal((ok.doc.state as { current_state: string }).current_state, "deposited");
    const deliver = await run(c, ["commit", "--action", "DELIVER", "--sign", "seller", "--json"]);
    assert.equal(deliver.code, 0);

    const status = await run(c, ["status", "--offline", "--json"]);
    assert.equal(status.code, 0);
    assert.equal(status.doc.ahead, 2);
    assert.equal(status.doc.behind, null);
    assert.equal(status.doc.current_state, "delivered");
    const log = await run(c, ["log", "--json"]);
    assert.deepEqual(
      (log.doc as unknown as { index: number; method: string }[]).map((e) => [e.index, e.method]),
      [
        [0, "genesis"],
        [1, "post"],
        [2, "action"],
      ],
    );
  });

  it("the remembered key signs; usage errors for commit arguments", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root, "buyer");
    const c = capture(home, root);
    assert.equal((await run(c, ["commit", "--action", "DEPOSIT"])).code, 0);
    assert.equal((await run(c, ["commit"])).code, 2);
    assert.equal((await run(c, ["commit", "stray"])).code, 2);
    assert.equal((await run(c, ["commit", "--post", "/a.json", "{bad"])).code, 2);
    assert.equal((await run(c, ["commit", "--post", "/a.bool", "yes"])).code, 2);
    assert.equal((await run(c, ["commit", "--post", "/a.text"])).code, 2);
    assert.equal((await run(c, ["send", "--asset", "X", "--to", "c2", "--amount", "-1"])).code, 2);
    assert.equal((await run(c, ["send", "--asset", "X", "--amount", "5"])).code, 2);
    assert.equal((await run(c, ["create", "--asset", "X", "--quantity", "0"])).code, 2);
    assert.equal((await run(c, ["recv"])).code, 2);
  });

  it("reset --hard origin --offline drops the unpushed commits", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root, "buyer");
    const c = capture(home, root);
    await run(c, ["commit", "--action", "DEPOSIT"]);
    const r = await run(c, ["reset", "--hard", "origin", "--offline", "--json"]);
    assert.equal(r.code, 0);
    assert.equal((r.doc.dropped as unknown[]).length, 1);
    assert.equal((await run(c, ["status", "--offline", "--json"])).doc.ahead, 0);
  });

  it("push to an unreachable hub fails with exit 1; a missing commit file is CORRUPTED", async () => {
    const { home, root, keys } = setup("buyer", "seller");
    await offlineEscrow(keys, root, "buyer");
    const c = capture(home, root);
    await run(c, ["commit", "--action", "DEPOSIT"]);
    const push = await run(c, ["push", "--json"]);
    assert.equal(push.code, 1);
    assert.equal(push.doc.code, "UNAVAILABLE");
    assert.equal((await run(c, ["commit", "--action", "DELIVER", "--sign", "seller"])).code, 0);
    rmSync(join(root, ".contract", "commits", "0000000001.json"));
    const status = await run(c, ["status", "--offline", "--json"]);
    assert.equal(status.code, 1);
    assert.equal(status.doc.code, "CORRUPTED");
    const verify = await run(c, ["verify", "--json"]);
    assert.equal(verify.code, 1);
    assert.equal((verify.doc.damage as { index: number }).index, 1);
  });
});

describe("progress bar", () => {
  it("draws on a terminal only", () => {
    const drawn: string[] = [];
    const base: CliIo = { out: () => {}, err: () => {}, errRaw: (t: string) => drawn.push(t) };
    const quiet = progressBar(cliOf({ ...base, errIsTTY: false }, {}), 10, "commits");
    quiet.update(5);
    quiet.finish();
    assert.deepEqual(drawn, []);
    const bar = progressBar(cliOf({ ...base, errIsTTY: true }, {}), 10, "commits");
    bar.update(5);
    bar.finish();
    assert.equal(drawn.length, 2);
    assert.match(drawn[0]!, /^\r\[#{15}\.{15}\] 5\/10 commits$/);
  });
});
