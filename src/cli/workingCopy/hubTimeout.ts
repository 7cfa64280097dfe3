/**
 * How long the command line waits for one request to its hub (docs/cli.md): `--timeout <ms>`,
 * else `CONTRACT_HUB_TIMEOUT`, else the default; 0 = no limit. The bound covers a whole
 * call of HubClient, its retries and the reading of the answer included, so a hub that
 * accepts a request and never answers is given up on after it (UNAVAILABLE `timeout`)
 * instead of after the HTTP client's own ~300 s per attempt, three attempts for a read.
 */
import { UsageError } from "../cliContext.js";

/**
 * Two minutes. The longest legitimate request is one page: a push of up to 1,000 commits
 * (16 MiB of body at most), which the hub must receive within its own request timeout (60 s by
 * default) and then model-check before it answers, or a pull page (8 MiB, or one commit that
 * is larger) read back. Twice the hub's receiving bound leaves as long again for the checks
 * and the answer on a slow machine; a slower link, or a hub started with a longer
 * `--request-timeout`, needs a larger value or 0.
 */
export const DEFAULT_HUB_TIMEOUT_MS = 120_000;
/** One text for every command that asks a hub (hubTimeout.ts). */
export const TIMEOUT_HELP =
  "the most one request to the hub waits, 0 = no limit (env CONTRACT_HUB_TIMEOUT; default 120000)";

/** An hour, the ceiling of the hub's own timeouts; past it, 0 says "no limit" plainly. */
const MAX_HUB_TIMEOUT_MS = 3_600_000;

/**
 * The bound in ms from `flag` and `env` (undefined: no limit), else `fallbackMs`; a usage error
 * naming the source when invalid.
 */
export function hubTimeoutMs(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  fallbackMs = DEFAULT_HUB_TIMEOUT_MS,
): number | undefined {
  const fromEnv = env.CONTRACT_HUB_TIMEOUT;
  const [text, source] =
    flag !== undefined
      ? [flag, "--timeout"]
      : fromEnv !== undefined && fromEnv !== ""
        ? [fromEnv, "--timeout (from CONTRACT_HUB_TIMEOUT)"]
        : [undefined, ""];
  if (text === undefined) return fallbackMs;
  const ms = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms > MAX_HUB_TIMEOUT_MS) {
    throw new UsageError(
      `Invalid ${source}: expected milliseconds from 0 (no limit) to ${MAX_HUB_TIMEOUT_MS}, got ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  return ms === 0 ? undefined : ms;
}
