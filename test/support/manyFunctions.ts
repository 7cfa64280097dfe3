import { ByteWriter } from "../../src/predicates/wasm/ByteWriter.js";

/**
 * A predicate module defining `total` functions: `alloc`, `evaluate`, and `total - 2` empty
 * ones that evaluate calls once each before answering `{"valid":true}`. Built as bytes: a
 * WAT of this size would take the assembler long.
 */
export function manyFunctions(total: number): Uint8Array {
  const n = total - 2;
  const w = new ByteWriter();
  const section = (id: number, payload: ByteWriter) => w.u8(id).u32(payload.toBytes().length).bytes(payload.toBytes());
  w.bytes(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  // types: 0 (i32) -> i32, 1 (i32, i32) -> i32, 2 () -> ()
  section(
    1,
    new ByteWriter().u32(3).bytes(Uint8Array.from([0x60, 1, 0x7f, 1, 0x7f, 0x60, 2, 0x7f, 0x7f, 1, 0x7f, 0x60, 0, 0])),
  );
  const funcs = new ByteWriter().u32(total).u32(0).u32(1);
  for (let i = 0; i < n; i++) funcs.u32(2);
  section(3, funcs);
  // 16 pages: alloc answers 1024, and a hub's input holds the state, this module's base64 included.
  section(5, new ByteWriter().u32(1).u8(0).u32(16));
  section(
    7,
    new ByteWriter().u32(3).name("memory").u8(2).u32(0).name("alloc").u8(0).u32(0).name("evaluate").u8(0).u32(1),
  );
  const code = new ByteWriter().u32(total);
  const body = (bytes: ByteWriter) => code.u32(bytes.toBytes().length).bytes(bytes.toBytes());
  body(new ByteWriter().u32(0).u8(0x41).u32(1024).u8(0x0b)); // alloc: i32.const 1024
  const evaluate = new ByteWriter().u32(0);
  for (let i = 0; i < n; i++) evaluate.u8(0x10).u32(2 + i); // call each function
  body(evaluate.u8(0x41).u32(512).u8(0x0b)); // i32.const 512
  for (let i = 0; i < n; i++) body(new ByteWriter().u32(0).u8(0x0b));
  section(10, code);
  const result = new TextEncoder().encode('\x0e\x00\x00\x00{"valid":true}');
  section(11, new ByteWriter().u32(1).u32(0).u8(0x41).u32(512).u8(0x0b).u32(result.length).bytes(result));
  return w.toBytes();
}
