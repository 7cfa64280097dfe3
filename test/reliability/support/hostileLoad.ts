/**
 * Shared parts of the hostile-load battery (docs/reliability.md): a hub process on SQLite or
 * PostgreSQL, a prober that keeps asking `GET /health` while an attack runs and records how
 * long each answer took, and the attack inputs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { type HubProcess, killAllHubs, startHub } from "../../support/hubProcess.js";
import { testDatabase } from "../../support/pg.js";
import { LONG } from "./seeded.js";

export type StoreKind = "sqlite" | "postgres";
export const STORES: StoreKind[] = ["sqlite", "postgres"];

/** The generous bound the battery asserts on /health (the figures it prints are the measurement). */
export const HEALTH_BOUND_MS = 1000;

const dirs: string[] = [];
const probes = new Set<HealthProbe>();
after(async () => {
  // A probe a failed test never stopped would poll its dead hub forever and keep the file running.
  for (const probe of probes) await probe.stop();
  await killAllHubs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A hub process of the battery, with the arguments that start another instance on its store. */
export type HostileHub = HubProcess & { args: string[] };

/** A hub process on a fresh SQLite directory or a fresh PostgreSQL database; `env` is added to its environment. */
export async function startHostileHub(
  kind: StoreKind,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<HostileHub> {
  const dir = mkdtempSync(join(tmpdir(), "hostile-load-"));
  dirs.push(dir);
  const all = kind === "sqlite" ? args : ["--database-url", (await testDatabase()).url, ...args];
  return { ...(await startHub(dir, all, env)), args: all };
}

/** Another hub process on the same store (PostgreSQL: a second instance of one deployment). */
export async function startSecondInstance(first: HostileHub): Promise<HostileHub> {
  return { ...(await startHub(first.dataDir, first.args)), args: first.args };
}

/** Latencies of `GET /health` polled every `everyMs` until `stop()`. */
export class HealthProbe {
  readonly samples: number[] = [];
  readonly failures: string[] = [];
  #running = true;
  readonly #done: Promise<void>;

  constructor(
    private readonly url: string,
    everyMs = 20,
  ) {
    this.#done = this.#loop(everyMs);
    probes.add(this);
  }

  async #loop(everyMs: number): Promise<void> {
    while (this.#running) {
      const started = performance.now();
      try {
        const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(30_000) });
        await res.text();
        if (!res.ok) this.failures.push(`status ${res.status}`);
      } catch (err) {
        this.failures.push((err as Error).message);
      }
      this.samples.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** Stops probing; resolves with the figures. */
  async stop(): Promise<{ probes: number; maxMs: number; p50Ms: number; p99Ms: number; failures: number }> {
    this.#running = false;
    probes.delete(this);
    await this.#done;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN);
    return {
      probes: sorted.length,
      maxMs: round(sorted.at(-1) ?? Number.NaN),
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      failures: this.failures.length,
    };
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Prints a test's figures in the battery's format (collected into docs/reliability.md). */
export function report(name: string, figures: Record<string, unknown>): void {
  console.log(`[hostile-load] ${name} ${JSON.stringify({ form: LONG ? "long" : "short", ...figures })}`);
}

/** A one-transition-per-state cycle of `n` states (`s0 -> s1 -> … -> s0`, every label `+A`). */
export function cycleModel(n: number): string {
  const lines = ["model Cycle {", "  initial s0"];
  for (let i = 0; i < n; i++) lines.push(`  s${i} -> s${(i + 1) % n} [+A]`);
  lines.push("}");
  return lines.join("\n");
}

/** `k` nested fixed-point rules over a cycle of `n` states: each costs about n² visits. */
export function heavyRules(k: number, n: number): string[] {
  return Array.from({ length: k }, (_, i) => `gfp(X, lfp(Y, (s${(i * 37) % n} & <+A>X) | <+A>Y))`);
}
