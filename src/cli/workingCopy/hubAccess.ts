/**
 * Which hub and which key a command uses (docs/cli.md): `--hub`, else the working copy's
 * remembered hub, else `HUB_URL`; `--key`, else the remembered key, else `default`, else the
 * only key. Each request waits `--timeout`, else `CONTRACT_HUB_TIMEOUT`, else two minutes.
 * Keys registered with `contract-hub register` serve as identity and access key.
 */
import { HubClient } from "../../client/HubClient.js";
import { type Cli, UsageError } from "../cliContext.js";
import { KeyStore, type StoredKey } from "../KeyStore.js";
import { hubTimeoutMs } from "./hubTimeout.js";
import type { WorkingCopy } from "./WorkingCopy.js";

/** Options every hub-facing command accepts. */
export interface HubFlags {
  hub?: string;
  key?: string;
  json?: boolean;
  /** The most one request to the hub waits, in ms (hubTimeout.ts). */
  timeout?: string;
}

/** The hub URL for a command; a usage error when none is known or it is not http(s). */
export function hubUrl(cli: Cli, flag: string | undefined, wc: WorkingCopy | null): string {
  const url = flag ?? wc?.config.hub ?? (cli.env.HUB_URL || undefined);
  if (url === undefined) throw new UsageError("no hub: pass --hub URL or set HUB_URL");
  return checkUrl(url);
}

/** `url` without a trailing slash, if it is an http(s) URL; a usage error otherwise. */
export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid hub URL ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`invalid hub URL ${JSON.stringify(url)}: expected http:// or https://`);
  }
  return url.replace(/\/+$/, "");
}

/** The key a writing command signs with; a usage error when none can be chosen. */
export function writingKey(cli: Cli, flag: string | undefined, wc: WorkingCopy | null): StoredKey {
  return KeyStore.of(cli.env).require(flag, wc?.config.key);
}

/** The key a reading command may sign requests with (private contracts), or null. */
export function readingKey(cli: Cli, flag: string | undefined, wc: WorkingCopy | null): StoredKey | null {
  return KeyStore.of(cli.env).choose(flag, wc?.config.key);
}

/**
 * A client of `url` signing requests with `key` (none: anonymous), each call bounded by the
 * command's `--timeout` (hubTimeout.ts) and cancelled by `signal` when given. Every client the
 * command line makes comes from here, so every hub-facing command shares the one bound.
 */
export function clientFor(cli: Cli, url: string, key: StoredKey | null, signal?: AbortSignal): HubClient {
  const timeoutMs = hubTimeoutMs(cli.timeout, cli.env);
  return new HubClient({
    url,
    ...(key ? { accessKey: key.seed } : {}),
    ...(signal ? { signal } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}
