/**
 * What the storage-fault harnesses need: signed raw requests (to see statuses and headers a
 * client library would hide), timed `/health` probes, a size-limited file system to fill,
 * and a TCP proxy in front of PostgreSQL to cut and restore (the shared server keeps running).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signRequest } from "../../../src/auth/signRequest.js";
import type { HubProcess } from "../../support/hubProcess.js";
import type { Party } from "./party.js";

export interface RawAnswer {
  status: number;
  body: { code?: string; details?: Record<string, unknown>; status?: string; storage?: string };
  retryAfter: string | null;
}

/** A request signed with `accessSeed` (or anonymous without one), answered raw. */
export async function rawRequest(
  url: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  accessSeed?: Uint8Array,
): Promise<RawAnswer> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const headers: Record<string, string> = accessSeed ? signRequest(accessSeed, { method, url: path, body: text }) : {};
  if (text !== "") headers["content-type"] = "application/json";
  const res = await fetch(url + path, { method, headers, ...(text !== "" ? { body: text } : {}) });
  return {
    status: res.status,
    body: (await res.json()) as RawAnswer["body"],
    retryAfter: res.headers.get("retry-after"),
  };
}

/** Asserts the answer every storage fault gets: 503 UNAVAILABLE `storage`/`storage` with Retry-After. */
export function assertStorageRefusal(answer: RawAnswer, storage: "disk_full" | "io_error" | "unreachable"): void {
  assert.equal(answer.status, 503, JSON.stringify(answer.body));
  assert.equal(answer.body.code, "UNAVAILABLE");
  assert.equal(answer.body.details?.reason, "storage");
  assert.equal(answer.body.details?.storage, storage);
  assert.ok(Number(answer.retryAfter) >= 1, `Retry-After: ${answer.retryAfter}`);
}

/** Asserts `/health` says degraded for `storage` with a 503, answered within the 1 s bound. */
export function assertDegraded(
  health: RawAnswer & { ms: number },
  storage: "disk_full" | "io_error" | "unreachable",
): void {
  assert.equal(health.status, 503);
  assert.equal(health.body.status, "degraded");
  assert.equal(health.body.storage, storage);
  assert.ok(health.ms < 1000, `/health took ${health.ms} ms`);
}

/**
 * The end of every storage-fault battery: kill -9 the hub, start it again with `restart`,
 * and assert the log of "writes" holds exactly the `acknowledged` commits, in order.
 */
export async function assertKeptAfterKill(
  hub: HubProcess,
  restart: () => Promise<HubProcess>,
  owner: Party,
  acknowledged: readonly string[],
): Promise<void> {
  await hub.kill();
  const again = await restart();
  const { commits } = await owner.client(again.url).pull("writes");
  assert.deepEqual(
    commits.map((c) => c.hash),
    acknowledged,
  );
}

/** `GET /health`: its answer and how long it took (ms). */
export async function timedHealth(url: string): Promise<RawAnswer & { ms: number }> {
  const started = performance.now();
  const answer = await rawRequest(url, "GET", "/health");
  return { ...answer, ms: performance.now() - started };
}

/** Polls `/health` until `want` (bounded); returns the polls it took. */
export async function healthBecomes(url: string, want: "ok" | "degraded", timeoutMs = 20_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (let polls = 1; ; polls++) {
    const h = await timedHealth(url);
    if (h.body.status === want) return polls;
    if (Date.now() > until) throw new Error(`/health stayed ${JSON.stringify(h.body)}, wanted ${want}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A tmpfs of `megabytes` mounted on a fresh directory, or the reason it cannot be. */
export function mountSmallFs(megabytes: number): { dir: string; unmount(): void } | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), "hostile-fs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a size-limited file system (needs root): ${(err as Error).message.split("\n")[0]}` };
  }
  return {
    dir,
    unmount: () => {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP proxy on loopback to `target`; `cut` drops every connection and refuses new ones until
 * `restore`. It listens on one port for its whole life: closing the listener and binding the
 * port again later would let another process on a busy machine take it in between.
 */
export class TcpProxy {
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;
  #cut = false;
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.#server = createServer((client) => {
      if (this.#cut) {
        // Refused: reset before a byte is exchanged, so the client sees ECONNRESET.
        client.on("error", () => {});
        client.resetAndDestroy();
        return;
      }
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once("error", reject);
      proxy.#server.listen(0, "127.0.0.1", () => {
        proxy.port = (proxy.#server.address() as { port: number }).port;
        resolve();
      });
    });
    return proxy;
  }

  /** Drops every connection (as a dead network would) and refuses new ones. */
  async cut(): Promise<void> {
    this.#cut = true;
    const closed = [...this.#sockets].map((s) => new Promise<void>((resolve) => s.once("close", () => resolve())));
    for (const s of this.#sockets) s.destroy();
    await Promise.all(closed);
  }

  /** Accepts connections again. */
  async restore(): Promise<void> {
    this.#cut = false;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
