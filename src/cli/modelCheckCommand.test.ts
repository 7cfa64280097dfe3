import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { Io } from "./Io.js";
import { main } from "./main.js";

const dir = mkdtempSync(join(tmpdir(), "model-check-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`) };
  const code = await main(args, io);
  return { code, out, err };
}

const escrow = file(
  "escrow.modality",
  "model Escrow {\n  part flow {\n    init -> deposited [+DEPOSIT]\n    deposited -> released [+RELEASE]\n    released -> released\n  }\n}\n",
);
const direct = file("direct.modality", "model D {\n  initial q0\n  q0 -> q1 [+POST]\n  q1 -> q1\n}\n");

describe("model check --json", () => {
  test("holds: sorted part:name states, holds_at_initial true, exit 0", async () => {
    const r = await run("model", "check", escrow, "eventually(released)", "--json");
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.out), {
      states: ["flow:deposited", "flow:init", "flow:released"],
      holds_at_initial: true,
    });
  });
  test("a one-part direct model is still written part:name", async () => {
    const r = await run("model", "check", direct, "q0", "--json");
    assert.deepEqual(JSON.parse(r.out).states, ["default:q0"]);
  });
  test("does not hold: exit 1 with a counterexample path", async () => {
    const r = await run("model", "check", escrow, "always(!released)", "--json");
    assert.equal(r.code, 1);
    const json = JSON.parse(r.out);
    assert.equal(json.holds_at_initial, false);
    assert.deepEqual(json.counterexample.path, ["flow:init", "flow:deposited", "flow:released"]);
    assert.deepEqual(json.counterexample.labels, ["+DEPOSIT", "+RELEASE"]);
    assert.equal(json.counterexample.kind, "path");
  });
  test("eventually unreachable: the reachable set", async () => {
    const r = await run("model", "check", escrow, "eventually(nowhere)", "--json");
    assert.equal(r.code, 1);
    assert.deepEqual(JSON.parse(r.out).counterexample.reachable, ["flow:init", "flow:deposited", "flow:released"]);
  });
});

describe("model check errors", () => {
  test("model parse error: file:line:col on stderr, exit 1", async () => {
    const bad = file("bad.modality", "model M {\n  a => b\n}\n");
    const r = await run("model", "check", bad, "true");
    assert.equal(r.code, 1);
    assert.match(r.err, /bad\.modality:2:\d+: /);
    assert.equal(r.out, "");
  });
  test("model error (relative path) carries the transition position", async () => {
    const bad = file("rel.modality", 'model M {\n  a -> a [+signed_by("users/x.id")]\n}\n');
    const r = await run("model", "check", bad, "true", "--json");
    assert.equal(r.code, 1);
    assert.match(r.err, /rel\.modality:2:3: /);
  });
  test("formula parse error: line:col in the formula", async () => {
    const r = await run("model", "check", escrow, "eventually(", "--json");
    assert.equal(r.code, 1);
    assert.match(r.err, /^<formula>:1:\d+: /);
  });
  test("non-monotone formula names the variable", async () => {
    const r = await run("model", "check", escrow, "lfp(X, !X)");
    assert.equal(r.code, 1);
    assert.match(r.err, /\bX\b/);
  });
  test("missing file: a usage error", async () => {
    const r = await run("model", "check", join(dir, "absent.modality"), "true");
    assert.equal(r.code, 2);
    assert.notEqual(r.err, "");
  });
});

describe("model check --json on a failure prints the error document", () => {
  const doc = (out: string) => JSON.parse(out) as { code: string; details: Record<string, unknown> };
  test("a model syntax error: VALIDATION_FAILED parse_error with file, line and column", async () => {
    const bad = file("bad-json.modality", "model M {\n  a => b\n}\n");
    const r = await run("model", "check", bad, "true", "--json");
    assert.equal(r.code, 1);
    const d = doc(r.out);
    assert.deepEqual(
      [d.code, d.details.reason, d.details.file, d.details.line],
      ["VALIDATION_FAILED", "parse_error", bad, 2],
    );
  });
  test("a formula syntax error names <formula>", async () => {
    const r = await run("model", "check", escrow, "eventually(", "--json");
    assert.equal(r.code, 1);
    assert.deepEqual([doc(r.out).details.reason, doc(r.out).details.file], ["parse_error", "<formula>"]);
  });
  test("a non-monotone formula is formula_error", async () => {
    const r = await run("model", "check", escrow, "lfp(X, !X)", "--json");
    assert.equal(r.code, 1);
    assert.deepEqual([doc(r.out).details.reason, doc(r.out).details.kind], ["formula_error", "NON_MONOTONE"]);
  });
  test("a missing file is USAGE unreadable_file, exit 2", async () => {
    const r = await run("model", "check", join(dir, "absent.modality"), "true", "--json");
    assert.equal(r.code, 2);
    assert.deepEqual([doc(r.out).code, doc(r.out).details.reason], ["USAGE", "unreadable_file"]);
  });
  test("model parse --json does the same", async () => {
    const bad = file("bad-parse.modality", "model M {\n  a => b\n}\n");
    const r = await run("model", "parse", bad, "--json");
    assert.equal(r.code, 1);
    assert.deepEqual([doc(r.out).details.reason, doc(r.out).details.line], ["parse_error", 2]);
    const missing = await run("model", "parse", join(dir, "absent.modality"), "--json");
    assert.equal(missing.code, 2);
    assert.equal(doc(missing.out).details.reason, "unreadable_file");
  });
});

describe("model check summary", () => {
  test("readable output names the failing state and path", async () => {
    const r = await run("model", "check", escrow, "always(!released)");
    assert.equal(r.code, 1);
    assert.match(r.out, /does not hold/);
    assert.match(r.out, /init --\[\+DEPOSIT\]--> deposited --\[\+RELEASE\]--> released/);
  });
  test("warnings go to stderr", async () => {
    const r = await run("model", "check", file("w.modality", "model W { a -> b }"), "true");
    assert.equal(r.code, 0);
    assert.match(r.err, /^warning: /m);
  });
});
