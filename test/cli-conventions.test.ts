/**
 * The conventions every command shares (docs/cli.md), in process through `main([...], io)`:
 * usage errors caught by the option parser are JSON documents with --json, an unknown command
 * is named as such, a folder that already is a working copy is refused alike by init and
 * clone, hashes print short, and the actions that may follow read the same everywhere.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { CliIo } from "../src/cli/cliContext.js";
import { KeyStore } from "../src/cli/KeyStore.js";
import { main } from "../src/cli/main.js";
import { acceptPulled } from "../src/cli/workingCopy/localLog.js";
import { WorkingCopy } from "../src/cli/workingCopy/WorkingCopy.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { genesisData } from "../src/contract/engine.js";
import { instantiateTemplate } from "../src/templates/instantiateTemplate.js";
import { tempDir } from "./cli-support.js";

/** A hub address nothing listens on (connections are refused at once). */
const DEAD_HUB = "http://127.0.0.1:1";

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  doc: Record<string, unknown> | null;
}

/** A key directory with a buyer and a seller, a folder to work in, and a runner of `main`. */
function setup(): { root: string; keys: KeyStore; run: (args: string[]) => Promise<Result> } {
  const base = tempDir("conventions");
  const home = join(base, "home");
  const root = join(base, "work");
  mkdirSync(root, { recursive: true });
  const keys = new KeyStore(join(home, "keys"));
  for (const n of ["buyer", "seller"]) keys.generate(n);
  const run = async (args: string[]): Promise<Result> => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      env: { CONTRACT_HUB_HOME: home },
      cwd: root,
      errIsTTY: false,
    };
    const code = await main(args, io);
    const stdout = out.join("");
    let doc: Record<string, unknown> | null = null;
    try {
      doc = JSON.parse(stdout);
    } catch {
      // Human output.
    }
    return { code, stdout, stderr: err.join(""), doc };
  };
  return { root, keys, run };
}

/** An escrow working copy made without a hub, its genesis accepted locally (as cli-usage.test.ts does). */
async function offlineEscrow(keys: KeyStore, root: string): Promise<void> {
  const t = instantiateTemplate("escrow", { buyer: keys.get("buyer").publicKey, seller: keys.get("seller").publicKey });
  const genesis = buildWireCommit(
    "c_offline",
    null,
    genesisData({ model: t.model, rules: t.rules, owner: keys.get("buyer").publicKey, state: t.state }),
  );
  const { log } = await acceptPulled("c_offline", [], [{ ...genesis, body: genesis.data, timestamp: 1_700_000_000 }]);
  WorkingCopy.create(root, { hub: DEAD_HUB, contract_id: "c_offline", key: "buyer" }, log);
}

describe("usage errors", () => {
  it("those the option parser finds print the JSON error document with --json (exit 2)", async () => {
    const { run } = setup();
    for (const args of [
      ["status", "--json", "--bogus"],
      ["clone", "--json"],
      ["frobnicate", "--json"],
      ["model", "frobnicate", "--json"],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.doc?.code, "USAGE", `${args.join(" ")}: ${r.stdout}`);
      assert.equal(typeof r.doc?.error, "string");
    }
    const bogus = await run(["status", "--bogus"]);
    assert.deepEqual([bogus.code, bogus.doc], [2, null]);
  });

  it("an unknown command is named as one, not taken as an argument of start", async () => {
    const { run } = setup();
    const r = await run(["frobnicate"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command 'frobnicate'/);
    assert.doesNotMatch(r.stderr, /start/);
    const json = await run(["frobnicate", "--json"]);
    assert.match(String(json.doc?.error), /frobnicate/);
  });
});

describe("an existing working copy as the target", () => {
  it("is refused by init and by clone alike (CONFLICT, exit 1), before the hub is asked", async () => {
    const { root, keys, run } = setup();
    await offlineEscrow(keys, root);
    const init = await run([
      "init",
      ".",
      "--template",
      "escrow",
      "--param",
      "buyer=buyer",
      "--hub",
      DEAD_HUB,
      "--json",
    ]);
    const clone = await run(["clone", `${DEAD_HUB}/c_offline`, ".", "--json"]);
    for (const r of [init, clone]) {
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.deepEqual(
        [r.doc?.code, (r.doc?.details as Record<string, unknown>)?.reason],
        ["CONFLICT", "working_copy_exists"],
      );
    }
  });
});

describe("what status and commit print", () => {
  it("status prints the head as its first 12 characters", async () => {
    const { root, keys, run } = setup();
    await offlineEscrow(keys, root);
    const doc = (await run(["status", "--offline", "--json"])).doc!;
    const human = await run(["status", "--offline"]);
    const head = /^Head +(\S+) /m.exec(human.stdout)?.[1];
    assert.equal(head, String(doc.head).slice(0, 12));
  });

  it("commit and status list the actions that may follow in one form; an unlabelled one as (any)", async () => {
    const { root, keys, run } = setup();
    await offlineEscrow(keys, root);
    const deposit = await run(["commit", "--action", "DEPOSIT"]);
    assert.equal(deposit.code, 0, deposit.stderr);
    // "next: A (signed by x), B (signed by x, y)": split at the commas outside parentheses.
    const fromCommit = /^State \S+; next: (.*)$/m.exec(deposit.stdout)![1]!.split(/, (?![^(]*\))/);
    const fromStatus = [...(await run(["status", "--offline"])).stdout.matchAll(/^(?:Next| ) +(.*) -> \S+$/gm)].map(
      (m) => m[1],
    );
    assert.ok(fromCommit.length >= 2, deposit.stdout);
    assert.deepEqual(fromStatus, fromCommit);
    assert.equal((await run(["commit", "--action", "DELIVER", "--sign", "seller"])).code, 0);
    const release = await run(["commit", "--action", "RELEASE"]);
    assert.equal(release.code, 0, release.stderr);
    assert.match(release.stdout, /^State released; next: \(any\)$/m);
    const status = await run(["status", "--offline"]);
    assert.match(status.stdout, /^Next +\(any\) -> released$/m);
  });
});
