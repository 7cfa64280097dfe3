/**
 * A library user's script (test/pulled-log-wasm.test.ts): checks a pulled log whose commits
 * need a custom predicate with the exported runner, prints the view, closes the runner
 * (unless told `keep`) and then does nothing more, so it must end by itself.
 */
import { HubClient } from "../src/client/index.js";
import { createWasmRunner } from "../src/predicates/index.js";
import { checkPulledLog } from "./support/checkPulledLog.js";

const [url, id, accessKey, keep] = process.argv.slice(2);
if (url === undefined || id === undefined || accessKey === undefined)
  throw new Error("usage: pulled-log-wasm-child.ts <url> <contract id> <access key hex> [keep]");
const client = new HubClient({ url, accessKey: Buffer.from(accessKey, "hex") });
const wasm = createWasmRunner();
const view = await checkPulledLog(client, id, wasm);
if (keep !== "keep") await wasm.close();
process.stdout.write(`${JSON.stringify(view)}\n`);
