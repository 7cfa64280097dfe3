import assert from "node:assert/strict";
import { test } from "node:test";
import { ByteWriter } from "./ByteWriter.js";
import { compiledWeight } from "./compiledWeight.js";

/** A module of `n` empty functions (type () -> ()), nothing else. */
function emptyFunctions(n: number): Uint8Array {
  const w = new ByteWriter();
  const section = (id: number, payload: ByteWriter) => w.u8(id).u32(payload.toBytes().length).bytes(payload.toBytes());
  w.bytes(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(1, new ByteWriter().u32(1).bytes(Uint8Array.from([0x60, 0, 0])));
  const funcs = new ByteWriter().u32(n);
  for (let i = 0; i < n; i++) funcs.u32(0);
  section(3, funcs);
  const code = new ByteWriter().u32(n);
  for (let i = 0; i < n; i++) code.u32(2).u8(0).u8(0x0b);
  section(10, code);
  return w.toBytes();
}

test("a compiled module weighs by its functions, not only its bytes", () => {
  // 60,000 empty functions are 240 KB of module and held tens of MB once compiled: counted
  // by bytes alone, the cache's 64 MiB let 128 such modules hold gigabytes.
  const many = emptyFunctions(60_000);
  const few = emptyFunctions(10);
  assert.ok(many.length < 400_000);
  assert.ok(compiledWeight(many) >= 60_000 * 1024, `weight ${compiledWeight(many)}`);
  assert.ok(compiledWeight(few) < 64 * 1024);
  assert.ok(compiledWeight(many) >= 4 * many.length);
  // Bytes that are not a module (the compile refuses them) weigh by their length.
  assert.equal(compiledWeight(Uint8Array.from([1, 2, 3])), 4 * 3);
});
