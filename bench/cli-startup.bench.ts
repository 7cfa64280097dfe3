/**
 * Start-up of the installed command: `contract-hub --version` and `contract-hub keys` on the
 * compiled package (dist/, `npm run build` first) against a bare `node -e 0`, interleaved
 * in the same run, median of 15 each. The ratio is what a user feels; the goal is ≤ ~4×.
 * With CONTRACT_HUB_SOURCE=1 the same command through tsx, for comparison.
 * Run: npm run build && npm run bench -- cli-startup
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Reporter } from "./Reporter.js";

const BENCH = "cli-startup";
const BIN = new URL("../bin/contract-hub.js", import.meta.url).pathname;
const ROUNDS = 15;

export default async function cliStartup(r: Reporter): Promise<void> {
  if (!existsSync(new URL("../dist/cli/main.js", import.meta.url))) throw new Error("run `npm run build` first");
  const home = mkdtempSync(join(tmpdir(), "bench-cli-"));
  const env = { ...process.env, CONTRACT_HUB_HOME: home, CONTRACT_HUB_SOURCE: "0" };
  const cases: Record<string, { args: string[]; env: NodeJS.ProcessEnv }> = {
    "node -e 0": { args: ["-e", "0"], env },
    "contract-hub --version": { args: [BIN, "--version"], env },
    "contract-hub keys": { args: [BIN, "keys"], env },
    "contract-hub --version (sources through tsx)": {
      args: [BIN, "--version"],
      env: { ...env, CONTRACT_HUB_SOURCE: "1" },
    },
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, c] of Object.entries(cases)) {
      const started = performance.now();
      const res = spawnSync(process.execPath, c.args, { env: c.env, stdio: "ignore" });
      if (res.status !== 0 && name !== "contract-hub keys") throw new Error(`${name} exited with ${res.status}`);
      times[name]!.push(performance.now() - started);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const bare = median(times["node -e 0"]!);
  for (const [name, xs] of Object.entries(times)) {
    r.add({ bench: BENCH, case: name, value: median(xs), unit: "ms" });
    if (name !== "node -e 0")
      r.add({ bench: BENCH, case: `${name} / node -e 0`, value: median(xs) / bare, unit: "ratio" });
  }
}
