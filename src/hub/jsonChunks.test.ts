import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSON_CHUNK_CHARS, jsonChunks } from "./jsonChunks.js";

async function pieces(value: object): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of jsonChunks(value)) out.push(piece);
  return out;
}

describe("jsonChunks", () => {
  it("gives JSON.stringify's text, byte for byte", async () => {
    const values: object[] = [
      { commits: [], total: 0 },
      { commits: [{ a: 1, b: undefined, c: 'é\u2028"' }, null, undefined, [1, { d: [] }]], total: 3 },
      { skipped: undefined, f: () => 1, n: null, s: "x", arr: [1, 2], o: { p: [3] } },
      {},
    ];
    for (const value of values) assert.equal((await pieces(value)).join(""), JSON.stringify(value));
  });

  it("cuts a long page into pieces of about JSON_CHUNK_CHARS", async () => {
    const page = {
      commits: Array.from({ length: 100 }, (_, i) => ({ index: i, value: "v".repeat(10_000) })),
      total: 100,
    };
    const out = await pieces(page);
    assert.equal(out.join(""), JSON.stringify(page));
    assert.ok(out.length > 10, `${out.length} pieces`);
    assert.ok(out.every((p) => p.length < JSON_CHUNK_CHARS + 20_000));
  });
});
