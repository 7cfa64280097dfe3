/** One measured figure. `unit` says what `value` counts; ratios carry unit "ratio". */
export interface BenchRow {
  bench: string;
  case: string;
  value: number;
  unit: string;
  note?: string;
}

/** Collects rows from every benchmark of a run. */
export class Reporter {
  readonly rows: BenchRow[] = [];

  add(row: BenchRow): void {
    this.rows.push(row);
    const v = Number.isInteger(row.value) ? row.value : Number(row.value.toPrecision(4));
    process.stderr.write(`  ${row.bench} · ${row.case}: ${v} ${row.unit}${row.note ? ` (${row.note})` : ""}\n`);
  }

  markdown(): string {
    const lines = ["| bench | case | value | unit | note |", "|---|---|---|---|---|"];
    for (const r of this.rows) {
      const v = Number.isInteger(r.value) ? String(r.value) : r.value.toPrecision(4);
      lines.push(`| ${r.bench} | ${r.case} | ${v} | ${r.unit} | ${r.note ?? ""} |`);
    }
    return lines.join("\n");
  }
}

/** Runs `fn` repeatedly for at least `minMs` and returns operations per second. */
export function opsPerSecond(fn: () => void, minMs = 500): number {
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    fn();
    ops++;
    elapsed = performance.now() - start;
  }
  return (ops / elapsed) * 1000;
}

/** Median wall time of `runs` calls of `fn`, in milliseconds. */
export function medianMs(fn: () => void, runs = 5): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}
