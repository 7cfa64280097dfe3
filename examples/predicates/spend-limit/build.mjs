#!/usr/bin/env node
// Compiles spend_limit.ts to spend_limit.wasm with the AssemblyScript compiler (the
// project's pinned devDependency): `node examples/predicates/spend-limit/build.mjs [OUT_DIR]`
// (default: build/ beside this file). The stub runtime never frees memory, which suits a
// module the hub instantiates afresh for every evaluation and keeps the module small.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(process.argv[2] ?? join(here, "build"));
mkdirSync(outDir, { recursive: true });
const outFile = join(outDir, "spend_limit.wasm");

const { error, stderr } = await asc.main([
  join(here, "spend_limit.ts"),
  "--outFile",
  outFile,
  "--runtime",
  "stub",
  "--optimizeLevel",
  "3",
  "--shrinkLevel",
  "1",
]);
if (error) {
  process.stderr.write(stderr.toString());
  process.stderr.write(`build failed: ${error.message}\n`);
  process.exit(1);
}
process.stdout.write(`${outFile}\n`);
