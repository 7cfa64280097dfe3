#!/usr/bin/env node
// The package's command. It runs the TypeScript sources through tsx, so a fresh clone
// needs no build step between `npm install` and `npm start`.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
