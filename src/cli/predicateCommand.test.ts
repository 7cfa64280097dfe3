import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { abiModuleWat, compileWat } from "../predicates/wasm/compileWat.js";
import type { CliIo } from "./cliContext.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./Io.js";
import { main } from "./main.js";
import { predicateTestCommand } from "./predicateCommand.js";

let dir: string;
const io = (): CliIo & { stdout: string[]; stderr: string[] } => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), cwd: dir, env: {} };
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "predicate-test-"));
  const fixture = new URL("../../test/fixtures/wasm/predicate.wat", import.meta.url);
  writeFileSync(join(dir, "okarg.wasm"), await compileWat(readFileSync(fixture, "utf8")));
  // Holds when the input contains the bytes NEEDLE (so it reads --state).
  const needle = abiModuleWat(
    `(local $i i32)
     (block $no
       (loop $scan
         (br_if $no (i32.ge_u (i32.add (local.get $i) (i32.const 4)) (local.get $len)))
         (if (i32.eq (i32.load (i32.add (local.get $ptr) (local.get $i))) (i32.const 0x4c444545))
           (then (return (i32.const 0))))
         (local.set $i (i32.add (local.get $i) (i32.const 1)))
         (br $scan)))
     (i32.const 64)`,
    `(data (i32.const 0) "\\0e\\00\\00\\00{\\"valid\\":true}")
     (data (i32.const 64) "\\0f\\00\\00\\00{\\"valid\\":false}")`,
  );
  writeFileSync(join(dir, "needle.wasm"), await compileWat(needle));
  writeFileSync(join(dir, "state.json"), JSON.stringify({ "/note.text": "a NEEDLE here" }));
  writeFileSync(join(dir, "list.json"), "[1]");
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("prints {valid, gas_used, errors}: exit 0 when the module holds, 1 when not", async () => {
  const yes = io();
  assert.equal(await predicateTestCommand("okarg.wasm", { args: '["ok"]' }, yes), EXIT_OK);
  const doc = JSON.parse(yes.stdout.join(""));
  assert.equal(doc.valid, true);
  assert.ok(doc.gas_used > 0);
  assert.deepEqual(doc.errors, []);
  const no = io();
  assert.equal(await predicateTestCommand("okarg.wasm", { args: '["nope"]' }, no), EXIT_FAILED);
  assert.deepEqual(JSON.parse(no.stdout.join("")).errors, ["arg is not ok"]);
});

test("accepts --json, as every command does (its output is JSON either way)", async () => {
  const out = io();
  assert.equal(await main(["predicate", "test", "okarg.wasm", "--args", '["ok"]', "--json"], out), EXIT_OK);
  assert.equal(JSON.parse(out.stdout.join("")).valid, true);
});

test("--state reaches the module; --gas-limit bounds it", async () => {
  assert.equal(await predicateTestCommand("needle.wasm", {}, io()), EXIT_FAILED);
  assert.equal(await predicateTestCommand("needle.wasm", { state: "state.json" }, io()), EXIT_OK);
  const starved = io();
  assert.equal(
    await predicateTestCommand("needle.wasm", { state: "state.json", gasLimit: "20" }, starved),
    EXIT_FAILED,
  );
  assert.match(JSON.parse(starved.stdout.join("")).errors[0], /^out_of_gas: /);
});

test("bad flags and files are usage errors (exit 2) naming the problem", async () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["okarg.wasm", { args: "[" }, /--args is not JSON/],
    ["okarg.wasm", { args: '{"a":1}' }, /--args must be a JSON array/],
    ["okarg.wasm", { state: "list.json" }, /must hold a JSON object/],
    ["okarg.wasm", { gasLimit: "0" }, /--gas-limit must be a positive integer/],
    ["missing.wasm", {}, /cannot read missing\.wasm/],
  ];
  for (const [file, flags, message] of cases) {
    const out = io();
    assert.equal(await predicateTestCommand(file, flags, out), EXIT_USAGE, JSON.stringify(flags));
    assert.match(out.stderr.join(""), message);
  }
});
