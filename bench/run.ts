/**
 * `npm run bench [-- name ...]`: runs every benchmark in bench/*.bench.ts (or those whose
 * file name contains one of the given names) in one process, so ratios compare figures
 * measured on the same machine in the same run. Prints a markdown table on stdout and
 * writes JSON to bench/results.json, replacing only the rows of the benchmarks that ran.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { type BenchRow, Reporter } from "./Reporter.js";

const filters = process.argv.slice(2);
const dir = new URL(".", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
  .sort();

const reporter = new Reporter();
for (const file of files) {
  process.stderr.write(`${file}\n`);
  const mod = (await import(new URL(file, dir).href)) as { default: (r: Reporter) => Promise<void> };
  await mod.default(reporter);
}
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const resultsFile = new URL("results.json", dir);
const ran = new Set(reporter.rows.map((row) => row.bench));
const earlier: BenchRow[] = existsSync(resultsFile)
  ? (JSON.parse(readFileSync(resultsFile, "utf8")) as { rows: BenchRow[] }).rows.filter((row) => !ran.has(row.bench))
  : [];
const results = { machine, date: new Date().toISOString(), rows: [...earlier, ...reporter.rows] };
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`Machine: ${machine}\n\n${reporter.markdown()}\n`);
