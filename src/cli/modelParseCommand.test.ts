import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { SourceFile } from "../lang/ast.js";
import { parseSource } from "../lang/parser.js";
import type { Io } from "./Io.js";
import { main } from "./main.js";

function capture(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    out: (t: string) => {
      io.stdout += t;
    },
    err: (t: string) => {
      io.stderr += t;
    },
  };
  return io;
}

const dir = mkdtempSync(join(tmpdir(), "model-parse-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const SOURCE = [
  "// escrow",
  "model Escrow {",
  '  init --> deposited: +DEPOSIT +signed_by("buyer")',
  "  part audit { a -> b [+A] b -> b }",
  "}",
  "formula CanPay { <+PAY> true }",
  "export default rule { starting_at $PARENT formula { always(<+POST> true) } }",
].join("\n");

describe("contract-hub model parse", () => {
  test("prints canonical text that parses to the same items, plus a summary", async () => {
    const io = capture();
    const code = await main(["model", "parse", file("ok.modality", SOURCE)], io);
    assert.equal(code, 0);
    assert.equal(io.stderr, "");
    const strip = (s: SourceFile) => JSON.stringify(s, (k, v) => (k === "pos" ? undefined : v));
    assert.equal(strip(parseSource(io.stdout)), strip(parseSource(SOURCE)));
    assert.match(io.stdout, /^\/\/ 1 model, 1 formula, 1 rule$/m);
    assert.match(io.stdout, /^\/\/ model Escrow: 2 parts, 4 states, 3 transitions$/m);
  });

  test("--json prints the syntax tree", async () => {
    const io = capture();
    const code = await main(["model", "parse", "--json", file("json.modality", SOURCE)], io);
    assert.equal(code, 0);
    const tree = JSON.parse(io.stdout) as SourceFile;
    assert.deepEqual(
      tree.items.map((i) => i.kind),
      ["model", "formula", "rule"],
    );
    assert.deepEqual(tree.items[0]!.pos, { line: 2, column: 1 });
  });

  test("a parse error goes to stderr as file:line:col and exits 1", async () => {
    const io = capture();
    const path = file("bad.modality", "model M {\n  initial q0\n  q0 => q1\n}");
    const code = await main(["model", "parse", path], io);
    assert.equal(code, 1);
    assert.equal(io.stdout, "");
    assert.ok(io.stderr.startsWith(`${path}:3:6: expected `), io.stderr);
  });

  test("a missing file exits 2 (a usage error)", async () => {
    const io = capture();
    const code = await main(["model", "parse", join(dir, "absent.modality")], io);
    assert.equal(code, 2);
    assert.ok(io.stderr.includes("absent.modality"));
  });

  test("a bare rule file parses", async () => {
    const io = capture();
    const code = await main(["model", "parse", "--json", file("rule.modality", "[-signed_by(/users/a.id)] false")], io);
    assert.equal(code, 0);
    const tree = JSON.parse(io.stdout) as SourceFile;
    assert.equal(tree.items[0]!.kind === "rule" && tree.items[0]!.envelope, "bare");
  });
});
