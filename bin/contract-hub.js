#!/usr/bin/env node
// The package's command. It runs the compiled code in dist/ (built by `npm run build`, which
// `npm install` in a clone and `npm pack` run through `prepare`). With CONTRACT_HUB_SOURCE=1,
// or in a clone that has not been built, it runs the TypeScript sources through tsx (a
// development dependency) instead; the test suite sets it, so tests never run a stale build.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/cli/main.js", import.meta.url);
const fromSource = process.env.CONTRACT_HUB_SOURCE === "1" || !existsSync(compiled);
let main;
if (fromSource) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/cli/main.ts"));
} else {
  ({ main } = await import(compiled.href));
}
process.exitCode = await main(process.argv.slice(2));
