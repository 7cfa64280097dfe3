import assert from "node:assert/strict";
import { test } from "node:test";
import { MEMO_MIN_CHARS } from "../../contract/modelParseMemo.js";
import { bigModelTexts } from "./bigModelTexts.js";

test("the big model texts of a commit as received: genesis model, model value, .modality values; nothing else", () => {
  const big = (tag: string) => `model ${tag} {${" ".repeat(MEMO_MIN_CHARS)}}`;
  const commit = {
    data: [
      { method: "genesis", value: { model: big("G"), rules: [big("R")] } },
      { method: "model", value: big("M") },
      { method: "post", path: "/docs/a.modality", value: big("P") },
      { method: "repost", path: "/reposts/c1/b.modality", value: big("Q") },
      { method: "post", path: "/docs/a.text", value: big("T") },
      { method: "model", value: "model small { a -> a }" },
      { method: "model", value: `${big("X")}${" ".repeat(1000)}` },
      null,
      "junk",
    ],
  };
  const found = bigModelTexts(commit, MEMO_MIN_CHARS + 500).map((t) => t.slice(0, 7));
  assert.deepEqual(found, ["model G", "model M", "model P", "model Q"]);
  for (const junk of [null, 1, "x", [], { data: "x" }, { data: [{ method: "genesis", value: null }] }])
    assert.deepEqual(bigModelTexts(junk, 1e9), []);
});
