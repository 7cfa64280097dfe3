import { Worker, type WorkerOptions } from "node:worker_threads";

/** The URL of a module next to `base` (an `import.meta.url`), with the extension `base` runs as: .ts from sources, .js built. */
export function siblingModule(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith(".ts") ? ".ts" : ".js"}`, base);
}

/**
 * A worker on `entry`. TypeScript sources (a clone run through tsx) need tsx registered in the
 * worker too: loader hooks of the main thread do not reach workers on every supported Node.
 */
export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, options);
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
