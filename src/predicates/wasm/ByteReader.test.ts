import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ByteReader } from "./ByteReader.js";
import { ByteWriter } from "./ByteWriter.js";
import { InvalidModuleError } from "./InvalidModuleError.js";

test("u32 LEB128 round-trips", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => {
      const bytes = new ByteWriter().u32(n).toBytes();
      const r = new ByteReader(bytes);
      assert.equal(r.u32(), n);
      assert.ok(r.done);
    }),
  );
});

test("signed LEB128 round-trips at 32 and 64 bits", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
      const r = new ByteReader(new ByteWriter().signed(n).toBytes());
      assert.equal(r.signed(64), n);
      assert.ok(r.done);
    }),
  );
  fc.assert(
    fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
      assert.equal(new ByteReader(new ByteWriter().signed(n).toBytes()).s32(), n);
    }),
  );
});

test("known encodings match the spec examples", () => {
  assert.deepEqual([...new ByteWriter().u32(624485).toBytes()], [0xe5, 0x8e, 0x26]);
  assert.deepEqual([...new ByteWriter().signed(-123456).toBytes()], [0xc0, 0xbb, 0x78]);
  assert.deepEqual([...new ByteWriter().signed(-64).toBytes()], [0x40]);
  assert.deepEqual([...new ByteWriter().signed(64).toBytes()], [0xc0, 0x00]);
});

test("overlong, out-of-range and truncated integers are malformed", () => {
  const bad = (bytes: number[], read: (r: ByteReader) => unknown) =>
    assert.throws(
      () => read(new ByteReader(Uint8Array.from(bytes))),
      (e) => e instanceof InvalidModuleError && e.feature === "malformed",
    );
  bad([0x80, 0x80, 0x80, 0x80, 0x80, 0x00], (r) => r.u32());
  bad([0xff, 0xff, 0xff, 0xff, 0x1f], (r) => r.u32());
  bad([0x80], (r) => r.u32());
  bad([0xff, 0xff, 0xff, 0xff, 0x4f], (r) => r.signed(32));
  bad([0x02], (r) => r.take(2));
  bad([0x01, 0xff], (r) => r.name());
});
