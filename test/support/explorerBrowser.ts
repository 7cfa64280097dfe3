/**
 * What the explorer's browser tests share: Debian's chromium driven by playwright-core, the
 * skip rule (no chromium: skipped with a message, except under CI, where it must run), the
 * built explorer and a hub serving it. Screenshots go to .test-artifacts/.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { AccessRegistry } from "../../src/auth/AccessRegistry.js";
import { Authenticator } from "../../src/auth/Authenticator.js";
import { type RunningServers, startServers } from "../../src/http/startServers.js";
import { Hub, type HubOptions } from "../../src/hub/Hub.js";
import { SqliteStore } from "../../src/store/sqlite/SqliteStore.js";

export const CHROMIUM = "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const ARTIFACTS = join(ROOT, ".test-artifacts");
const hasChromium = existsSync(CHROMIUM);

/** The `skip` option of a browser suite. */
export const skipWithoutChromium =
  !hasChromium && !process.env.CI
    ? `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to run the explorer browser tests`
    : false;

/** Headless chromium with the flags this machine's closed network needs; playwright gives each launch a fresh profile. */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Before each suite: chromium must exist under CI, and the explorer must be built. */
export function prepare(): void {
  if (process.env.CI) assert.ok(hasChromium, `${CHROMIUM} is missing; .ci/run installs it before npm ci`);
  if (!existsSync(join(ROOT, "web/dist/index.html"))) {
    // npm install builds it (prepare); a checkout without that step still gets a real page here.
    const built = spawnSync("npm", ["run", "build:web"], { cwd: ROOT, stdio: "inherit" });
    assert.equal(built.status, 0, "npm run build:web failed");
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}

/** A hub serving the explorer to a browser suite; `close` stops it and removes its folder. */
export interface ExplorerHub {
  /** The REST base URL, where the explorer is served too. */
  readonly restUrl: string;
  close(): Promise<void>;
}

/**
 * A real hub in-process: SQLite in a fresh temporary folder named after `name`, REST and the
 * explorer on a loopback port, no rate limit (a browser test makes many requests quickly; the
 * work budget still applies), no JSON-RPC, no request log. `options` are the hub's own (templates, synthesis).
 */
export async function startExplorerHub(name: string, options: Omit<HubOptions, "store"> = {}): Promise<ExplorerHub> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  let store: SqliteStore | undefined;
  let hub: Hub | undefined;
  let servers: RunningServers | undefined;
  const close = async () => {
    await servers?.close();
    await hub?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    store = await SqliteStore.open({ dataDir: dir });
    hub = new Hub({ ...options, store });
    servers = await startServers(
      {
        hub,
        authenticator: new Authenticator({ store }),
        registry: new AccessRegistry({ store }),
        rateLimit: 0,
        logger: false,
      },
      { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: false },
    );
  } catch (err) {
    // Nothing to hand back for the suite's `after` to close: what was opened is closed here.
    await close();
    throw err;
  }
  return { restUrl: servers.restUrl, close };
}
