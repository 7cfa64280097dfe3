/**
 * What the explorer's browser tests share: Debian's chromium driven by playwright-core, the
 * skip rule (no chromium: skipped with a message, except under CI, where it must run) and the
 * built explorer. Screenshots go to .test-artifacts/.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

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
