import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Io } from "./Io.js";
import { main } from "./main.js";

const dir = mkdtempSync(join(tmpdir(), "model-graph-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`) };
  return { code: await main(args, io), out, err };
}

test("model graph prints DOT and Mermaid, warnings on stderr", async () => {
  const path = join(dir, "m.modality");
  writeFileSync(path, 'model M {\n  part p { a -> b [+GO +sets(/x.text, "v")]\n  c -> a }\n}\n');
  const r = await run("model", "graph", path);
  assert.equal(r.code, 0);
  assert.match(r.out, /digraph "M" \{/);
  assert.match(r.out, /s0 -> s1 \[label="\+GO \+post_to\(\/x\.text, v\)"\]/);
  assert.match(r.out, /stateDiagram-v2/);
  assert.match(r.out, /\[\*\] --> s2/);
  const codes = r.err.split("\n").filter((l) => l.startsWith("warning: ")).length;
  assert.equal(codes, 1, "b is terminal without self-loop");
});

test("model graph reports parse errors with position", async () => {
  const path = join(dir, "bad.modality");
  writeFileSync(path, "model M {\n  a -> \n}\n");
  const r = await run("model", "graph", path);
  assert.equal(r.code, 1);
  assert.match(r.err, /bad\.modality:\d+:\d+: /);
});
