import assert from "node:assert/strict";
import { test } from "node:test";
import { WASM_MEMO_MIN_CHARS } from "../../contract/wasmValueMemo.js";
import { bigWasmValues } from "./bigWasmValues.js";

test("the big .wasm values of a commit as received: post and repost values at .wasm paths; nothing else", () => {
  const big = (tag: string) => `${tag}${"A".repeat(WASM_MEMO_MIN_CHARS)}`;
  const commit = {
    data: [
      { method: "genesis", value: { model: big("G"), rules: [] } },
      { method: "post", path: "/code/a.wasm", value: big("P") },
      { method: "repost", path: "/reposts/c1/code/b.wasm", value: big("Q") },
      { method: "post", path: "/code/a.text", value: big("T") },
      { method: "post", path: "/code/.wasm", value: big("D") },
      { method: "post", path: "/code/small.wasm", value: "AGFzbQEAAAA=" },
      { method: "post", path: "/code/n.wasm", value: 7 },
      { method: "model", value: big("M") },
      null,
      "junk",
    ],
  };
  assert.deepEqual(
    bigWasmValues(commit).map((v) => v[0]),
    ["P", "Q"],
  );
  for (const junk of [null, 1, "x", [], { data: "x" }, { data: [{ method: "post", path: 3, value: big("X") }] }])
    assert.deepEqual(bigWasmValues(junk), []);
});
