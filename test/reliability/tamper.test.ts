/**
 * Tamper battery (docs/reliability.md): contracts written through a real hub, the hub
 * stopped, its SQLite file damaged with better-sqlite3 (a flipped byte, a row whose JSON no
 * longer decodes, a deleted middle row, a deleted tip, a row rewritten with a recomputed
 * hash, a flipped signature byte), then `verify --data-dir` must name exactly the damaged
 * commit of exactly the damaged contracts, and the restarted hub must answer 500 CORRUPTED
 * `{index, hash}` for those contracts on every route while serving the healthy one as before.
 * The damaged positions and bytes are drawn from the seed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { isContractError } from "../../src/contract/ContractError.js";
import { computeCommitHash } from "../../src/contract/commitHash.js";
import Database from "../../src/store/sqlite/Database.js";
import { type HubProcess, killAllHubs, startHub } from "../support/hubProcess.js";
import { Party } from "./support/party.js";
import { harnessSeed, Rng } from "./support/seeded.js";
import { type VerifyDoc, verifyDataDir } from "./support/verifyDataDir.js";

const LENGTH = 6;
const seed = harnessSeed("tamper");
const rng = new Rng(seed);
const base = mkdtempSync(join(tmpdir(), "rel-tamper-"));
const dataDir = join(base, "data");
const party = new Party(rng);
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
});

/** What each damage does to the row, and what the hub and verify must then say. */
interface Damage {
  contract: string;
  index: number;
  /** Hash the hub names (undefined: not asserted). */
  hubHash?: string;
  /** Hash verify names (undefined: not asserted). */
  verifyHash?: string;
  /** Index the hub names, when it differs from where verify points. */
  hubIndex?: number;
  /** False when the serving path does not look (signatures are checked at admission and by verify). */
  hubDetects: boolean;
}

interface Row {
  hash: string;
  parent: string | null;
  data: string;
  signatures: string;
}

let hub: HubProcess;
const heads = new Map<string, string>();
const damages: Damage[] = [];
let verified: { code: number; doc: VerifyDoc };

before(async () => {
  hub = await startHub(dataDir);
  await party.register(hub.url);
  const client = party.client(hub.url);
  for (const id of ["flip", "garble", "gap", "tip", "rewrite", "signature", "healthy"]) {
    const genesis = party.genesis(id);
    const commits = [genesis, ...party.chain(id, genesis.hash, LENGTH - 1, id)];
    heads.set(id, (await client.push(id, commits)).head);
  }
  await hub.stop();
});

describe("tamper: a damaged SQLite file", { timeout: 120_000 }, () => {
  it("verify is clean before any damage", async () => {
    const { code, doc } = await verifyDataDir(dataDir);
    assert.equal(code, 0);
    assert.equal(doc.checked, 7);
  });

  describe("damaged in six contracts", () => {
    // The damage is the setup of the checks below, not a check itself.
    before(() => {
      const db = new Database(join(dataDir, "hub.sqlite"));
      try {
        tamper(db);
      } finally {
        db.close();
      }
      console.log(`[tamper] damage ${JSON.stringify(damages.map((d) => [d.contract, d.index]))}`);
    });

    it("verify names exactly the damaged commit of exactly the damaged contracts", async () => {
      verified = await verifyDataDir(dataDir);
      assert.equal(verified.code, 1);
      assert.ok(Array.isArray(verified.doc.contracts), `verify answered ${JSON.stringify(verified.doc)}`);
      const bad = verified.doc.contracts.filter((c) => !c.ok).map((c) => c.contract_id);
      assert.deepEqual(bad.sort(), damages.map((d) => d.contract).sort());
      for (const d of damages) {
        const report = verified.doc.contracts.find((c) => c.contract_id === d.contract)!;
        // A deleted tip leaves a log that replays cleanly; verify blames the contract row (index null).
        const expected = d.contract === "tip" ? null : d.index;
        assert.equal(report.damage?.index, expected, `${d.contract}: ${report.damage?.message}`);
        if (d.verifyHash !== undefined) assert.equal(report.damage?.hash, d.verifyHash, d.contract);
      }
    });

    it("the restarted hub answers 500 CORRUPTED naming the commit on every route, and serves the rest", async () => {
      hub = await startHub(dataDir);
      const client = party.client(hub.url, hub.rpcUrl);
      let refusals = 0;
      for (const d of damages.filter((x) => x.hubDetects)) {
        const index = d.hubIndex ?? d.index;
        for (const path of ["", "/state", "/log", "/pull", "/commits", `/commits/${"0".repeat(64)}`, "/assets"]) {
          const res = await fetch(`${hub.url}/contracts/${d.contract}${path}`);
          const body = (await res.json()) as { code: string; details: { index: number; hash?: string } };
          assert.equal(res.status, 500, `${d.contract}${path}`);
          assert.equal(body.code, "CORRUPTED", `${d.contract}${path}`);
          assert.equal(body.details.index, index, `${d.contract}${path}`);
          if (d.hubHash !== undefined) assert.equal(body.details.hash, d.hubHash, `${d.contract}${path}`);
          refusals++;
        }
        // Writes on a damaged base are refused too, over both transports.
        const next = party.chain(d.contract, heads.get(d.contract)!, 1, "after");
        await assert.rejects(client.push(d.contract, next), (e) => isContractError(e, "CORRUPTED"));
        await assert.rejects(client.rpc("getContractState", { contract_id: d.contract }), (e) =>
          isContractError(e, "CORRUPTED"),
        );
        refusals += 2;
      }
      const healthy = await client.getState("healthy");
      assert.equal(healthy.head, heads.get("healthy"));
      const more = party.chain("healthy", healthy.head, 2, "after");
      assert.equal((await client.push("healthy", more)).pushed, 2);
      assert.equal((await client.pull("healthy")).commits.length, LENGTH + 2);
      console.log(
        `[tamper] figures ${JSON.stringify({ seed, damaged: damages.length, verifyNamed: damages.length, hubRefusals: refusals })}`,
      );
      await hub.stop();
    });
  });
});

/** Applies one seeded damage per contract (all but `healthy`). */
function tamper(db: Database.Database): void {
  const row = (id: string, idx: number) =>
    db
      .prepare("SELECT hash, parent, data, signatures FROM commits WHERE contract_id = ? AND idx = ?")
      .get(id, idx) as Row;
  const set = (id: string, idx: number, column: string, value: string) =>
    db.prepare(`UPDATE commits SET ${column} = ? WHERE contract_id = ? AND idx = ?`).run(value, id, idx);

  // A flipped byte anywhere in a row's operations: its hash no longer recomputes.
  let at = rng.int(0, LENGTH - 1);
  const flipped = row("flip", at);
  set("flip", at, "data", flipAlnum(flipped.data));
  damages.push({ contract: "flip", index: at, verifyHash: flipped.hash, hubHash: flipped.hash, hubDetects: true });

  // A row whose JSON no longer decodes.
  at = rng.int(0, LENGTH - 1);
  set("garble", at, "data", row("garble", at).data.slice(0, -1));
  damages.push({ contract: "garble", index: at, hubDetects: true });

  // A deleted middle row: the index sequence (and the next parent link) breaks there.
  at = rng.int(1, LENGTH - 2);
  db.prepare("DELETE FROM commits WHERE contract_id = ? AND idx = ?").run("gap", at);
  damages.push({ contract: "gap", index: at, hubDetects: true });

  // A deleted tip: the log replays cleanly, one short of the contract row's head.
  db.prepare("DELETE FROM commits WHERE contract_id = ? AND idx = ?").run("tip", LENGTH - 1);
  damages.push({ contract: "tip", index: LENGTH - 1, hubHash: heads.get("tip")!, hubDetects: true });

  // A row rewritten by someone without the key, hash recomputed: its signature no longer
  // verifies (verify names it); the hub does not re-verify signatures on load and finds the
  // next commit's parent link broken instead.
  at = rng.int(1, LENGTH - 2);
  const old = row("rewrite", at);
  // Only the posted text changes, so the rewritten commit is well-formed and its hash consistent.
  const ops = JSON.parse(old.data) as { value: string }[];
  ops[0]!.value += "!";
  const data = JSON.stringify(ops);
  set("rewrite", at, "data", data);
  set("rewrite", at, "hash", computeCommitHash("rewrite", old.parent, JSON.parse(data)));
  const nextHash = row("rewrite", at + 1).hash;
  damages.push({ contract: "rewrite", index: at, hubIndex: at + 1, hubHash: nextHash, hubDetects: true });

  // A flipped signature byte: only an untrusted replay (verify, a client clone) sees it.
  at = rng.int(1, LENGTH - 1);
  const signed = row("signature", at);
  set("signature", at, "signatures", flipHex(signed.signatures));
  damages.push({ contract: "signature", index: at, verifyHash: signed.hash, hubDetects: false });
}

/** Changes one seeded letter or digit of `json` to another, keeping it valid JSON. */
function flipAlnum(json: string): string {
  const positions = flippable(json);
  const i = rng.pick(positions);
  const c = json[i]!;
  const replacement = /[0-9]/.test(c)
    ? String((Number(c) + 1) % 10)
    : c === "z"
      ? "a"
      : String.fromCharCode(c.charCodeAt(0) + 1);
  return json.slice(0, i) + replacement + json.slice(i + 1);
}

/**
 * Where a letter or digit can change and the text stay valid JSON with the same members: in
 * string values, outside escapes. (Anywhere else it may not: `null` became `nulm`, a row that
 * no longer decodes, which the garble case covers and which verify names without a hash; a
 * number's leading 9 becomes 0; a member name could become its neighbour's.)
 */
function flippable(json: string): number[] {
  const out: number[] = [];
  let current: number[] | null = null;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (current === null) {
      if (c === '"') current = [];
    } else if (c === "\\") {
      i += json[i + 1] === "u" ? 5 : 1;
    } else if (c === '"') {
      // A member name is followed by its colon.
      if (json.slice(i + 1).trimStart()[0] !== ":") out.push(...current);
      current = null;
    } else if (/[a-z0-9]/.test(c)) {
      current.push(i);
    }
  }
  return out;
}

/** Changes one hex digit of the signature value in a `{"<key>":"<sig hex>"}` column. */
function flipHex(json: string): string {
  const sig = json.lastIndexOf(":") + 2;
  const i = sig + rng.int(0, 127);
  const c = json[i]!;
  return json.slice(0, i) + (c === "0" ? "1" : "0") + json.slice(i + 1);
}
