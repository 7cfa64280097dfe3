/**
 * `contract-hub verify --data-dir` (PROTOCOL.md §12) over a store written by a real hub
 * process: clean after a contract made with --model/--rule/--party, then a byte flipped in
 * one commit row of the SQLite file (through better-sqlite3) is reported at that index.
 */
import assert from "node:assert/strict";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "../src/store/sqlite/Database.js";
import { Actor, cli, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

const MODEL = `model Notes {
  initial open
  open -> open [+signed_by(/users/author.id) -CLOSE]
  open -> closed [+CLOSE +signed_by(/users/author.id)]
  closed -> closed []
}`;
const RULE = "export default rule { formula { always(!closed -> [-signed_by(/users/author.id)] !closed) } }";

interface VerifyDoc {
  ok: boolean;
  checked: number;
  damaged: number;
  contracts: { contract_id: string; ok: boolean; damage?: { index: number | null; hash?: string } }[];
  tree: { ok: boolean; size: number; damage?: { leaf_index: number | null; message: string } };
}

let base: string;
let hub: HubProcess;
let author: Actor;
let ids: string[] = [];

before(async () => {
  base = tempDir("hubverify");
  hub = await startHubProcess(join(base, "data"));
  author = new Actor("author", base, hub.url);
  writeFileSync(join(base, "notes.modality"), MODEL);
  writeFileSync(join(base, "only-author-closes.modality"), RULE);
});
after(async () => hub?.stop());

describe("verify --data-dir", () => {
  it("builds two contracts from a model file, a rule file and a party", async () => {
    await author.ok(["keygen", "--name", "author"]);
    await author.ok(["register"]);
    for (const dir of ["first", "second"]) {
      const init = await author.ok<{ contract_id: string }>(
        [
          "init",
          dir,
          "--model",
          join(base, "notes.modality"),
          "--rule",
          join(base, "only-author-closes.modality"),
          "--party",
          "author=author",
        ],
        base,
      );
      ids.push(init.contract_id);
      const wc = join(base, dir);
      await author.ok(["commit", "--post", "/notes/a.text", "first note"], wc);
      await author.ok(["commit", "--post", "/notes/b.json", '{"n": 2}'], wc);
      // Two requests of one commit each (pushInBatches); both stored.
      const pushed = await author.ok<{ pushed: number; ahead: number }>(["push", "--batch-size", "1"], wc);
      assert.deepEqual([pushed.pushed, pushed.ahead], [2, 0]);
    }
    ids = ids.sort();
  });

  it("is clean on an untouched store, then names the commit row whose byte was flipped", async () => {
    await hub.stop();
    const clean = await cli(["verify", "--data-dir", hub.dataDir, "--json"], { cwd: base, home: author.home });
    assert.equal(clean.code, 0, clean.stderr);
    const ok = clean.json<VerifyDoc>();
    assert.equal(ok.ok, true);
    assert.equal(ok.checked, 2);
    assert.deepEqual(ok.contracts.map((c) => c.contract_id).sort(), ids);
    // Two contracts of a genesis and two pushed commits each: six leaves.
    assert.deepEqual(ok.tree, { ok: true, size: 6 });

    const victim = ids[1]!;
    const db = new Database(join(hub.dataDir, "hub.sqlite"));
    const row = db.prepare("SELECT hash, data FROM commits WHERE contract_id = ? AND idx = 2").get(victim) as {
      hash: string;
      data: string;
    };
    const bytes = Buffer.from(row.data, "utf8");
    const at = bytes.indexOf('"n"') + 1;
    assert.ok(at > 0);
    bytes[at] = bytes[at]! ^ 0x01;
    db.prepare("UPDATE commits SET data = ? WHERE contract_id = ? AND idx = 2").run(bytes.toString("utf8"), victim);
    db.close();

    const damaged = await cli(["verify", "--data-dir", hub.dataDir, "--json"], { cwd: base, home: author.home });
    assert.equal(damaged.code, 1);
    const doc = damaged.json<VerifyDoc>();
    assert.equal(doc.ok, false);
    assert.equal(doc.damaged, 1);
    const bad = doc.contracts.find((c) => !c.ok)!;
    assert.equal(bad.contract_id, victim);
    assert.equal(bad.damage?.index, 2);
    assert.equal(bad.damage?.hash, row.hash);
    assert.equal(doc.contracts.find((c) => c.contract_id !== victim)?.ok, true);
    // The leaf is the stored hash, which the flip left alone: the tree itself is intact.
    assert.equal(doc.tree.ok, true);
  });

  it("reports a tree node that no longer matches the commits", async () => {
    const dir = join(base, "tree-copy");
    cpSync(hub.dataDir, dir, { recursive: true });
    const db = new Database(join(dir, "hub.sqlite"));
    db.prepare("UPDATE tlog_nodes SET hash = ? WHERE level = 1 AND idx = 1").run("ab".repeat(32));
    db.close();
    const r = await cli(["verify", "--data-dir", dir, "--json"], { cwd: base, home: author.home });
    assert.equal(r.code, 1);
    const doc = r.json<VerifyDoc>();
    assert.equal(doc.tree.ok, false);
    assert.match(doc.tree.damage!.message, /tree node 1:1 differs/);
  });

  it("reports a commit row whose JSON no longer parses at its index", async () => {
    const victim = ids[0]!;
    const db = new Database(join(hub.dataDir, "hub.sqlite"));
    db.prepare("UPDATE commits SET signatures = '{' WHERE contract_id = ? AND idx = 1").run(victim);
    db.close();
    const r = await cli(["verify", "--data-dir", hub.dataDir, "--json"], { cwd: base, home: author.home });
    assert.equal(r.code, 1);
    const bad = r.json<VerifyDoc>().contracts.find((c) => c.contract_id === victim)!;
    assert.equal(bad.ok, false);
    assert.equal(bad.damage?.index, 1);
  });
});
