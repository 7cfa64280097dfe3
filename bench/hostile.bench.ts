/**
 * What the hub's hostile-input checks cost on the honest path: the duplicate-member scan on a
 * large push body (against JSON.parse of the same text, measured in the same run), parsing
 * it in slices, and the weak-key check per key (first sight, and again from the cache of
 * strong keys). And what they buy: the longest the event loop is held while 16 MiB of the
 * costliest JSON shapes are parsed in slices, against one JSON.parse of the same text.
 */
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { safeJsonParse } from "../src/contract/canonicalJson.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { DEFAULT_LIMITS } from "../src/contract/limits.js";
import { parseJsonInSlices } from "../src/contract/parseJsonInSlices.js";
import { scanJsonText } from "../src/contract/scanJsonText.js";
import { assertStrongKey, isWeakPublicKey } from "../src/contract/weakPublicKey.js";
import { medianMs, type Reporter } from "./Reporter.js";

const BENCH = "hostile";

/** A push body of `n` signed commits, each posting a note and an `.id` key. */
function pushBody(n: number): string {
  const signer = generateKeyPair();
  const commits = [];
  let parent = "ab".repeat(32);
  for (let i = 0; i < n; i++) {
    const data = [
      { method: "post" as const, path: `/notes/n${i}.text`, value: `note ${i}: ${"x".repeat(200)}` },
      { method: "post" as const, path: `/parties/p${i}.id`, value: signer.publicKey.toString("hex") },
    ];
    const c = buildWireCommit("c_0123456789abcdef01234567", parent, data, [{ key: signer.seed }]);
    commits.push(c);
    parent = c.hash;
  }
  return JSON.stringify({ commits });
}

export default async function run(r: Reporter): Promise<void> {
  const text = pushBody(2000);
  const note = `push body of 2,000 commits, ${(text.length / 2 ** 20).toFixed(2)} MiB`;
  const parse = medianMs(() => JSON.parse(text), 15);
  const scan = medianMs(() => scanJsonText(text, 64), 15);
  const safe = medianMs(() => safeJsonParse(text), 15);
  r.add({ bench: BENCH, case: "JSON.parse", value: parse, unit: "ms", note });
  r.add({ bench: BENCH, case: "duplicate and depth scan", value: scan, unit: "ms", note });
  r.add({ bench: BENCH, case: "safeJsonParse (scan + parse + checks)", value: safe, unit: "ms", note });
  r.add({ bench: BENCH, case: "scan / JSON.parse", value: scan / parse, unit: "ratio" });
  r.add({ bench: BENCH, case: "safeJsonParse / JSON.parse", value: safe / parse, unit: "ratio" });
  const sliced: number[] = [];
  for (let i = 0; i < 15; i++) sliced.push((await slicedParse(text)).totalMs);
  const slicedMs = sliced.sort((a, b) => a - b)[7]!;
  r.add({ bench: BENCH, case: "parseJsonInSlices (a body over 64 KiB)", value: slicedMs, unit: "ms", note });
  r.add({ bench: BENCH, case: "parseJsonInSlices / safeJsonParse", value: slicedMs / safe, unit: "ratio" });

  for (const [name, hostile] of Object.entries(hostileTexts())) {
    const mib = `${(hostile.length / 2 ** 20).toFixed(1)} MiB`;
    const one = medianMs(() => JSON.parse(hostile), 3);
    const run = await slicedParse(hostile);
    if (run.refused !== undefined) {
      r.add({ bench: BENCH, case: `${name}: one JSON.parse`, value: one, unit: "ms", note: mib });
      r.add({
        bench: BENCH,
        case: `${name}: refused by the hub (${run.refused}) after`,
        value: run.totalMs,
        unit: "ms",
        note: `longest hold of the event loop ${run.longestMs.toFixed(1)} ms in ${run.ticks} slices`,
      });
      continue;
    }
    r.add({ bench: BENCH, case: `${name}: one JSON.parse`, value: one, unit: "ms", note: mib });
    r.add({
      bench: BENCH,
      case: `${name}: parseJsonInSlices, longest hold of the event loop`,
      value: run.longestMs,
      unit: "ms",
      note: `${run.ticks} slices, ${run.totalMs.toFixed(0)} ms in all (wall clock, garbage collection included)`,
    });
  }

  const keys = Array.from({ length: 500 }, () => generateKeyPair().publicKey);
  const first = medianMs(() => {
    for (const k of keys) isWeakPublicKey(k);
  }, 5);
  for (const k of keys) assertStrongKey(k, "bench");
  const cached = medianMs(() => {
    for (const k of keys) assertStrongKey(k, "bench");
  }, 5);
  r.add({ bench: BENCH, case: "weak-key check, first sight", value: (first / keys.length) * 1000, unit: "µs/key" });
  r.add({
    bench: BENCH,
    case: "weak-key check, known strong key",
    value: (cached / keys.length) * 1000,
    unit: "µs/key",
  });
}

/**
 * Texts of the shapes JSON.parse is slowest on (tiny values, one every few bytes): 16 MiB of
 * nested empty arrays (the hub refuses them: over a million arrays), as many as the hub
 * takes, and 12 MiB of one-character members.
 */
function hostileTexts(): Record<string, string> {
  const nested = (n: number) => `[${Array.from({ length: n }, () => `${"[".repeat(60)}${"]".repeat(60)}`).join(",")}]`;
  const members = Math.floor((12 * 2 ** 20) / 12);
  return {
    "16 MiB of nested empty arrays": nested(Math.floor((16 * 2 ** 20) / 121) - 1),
    "1,000,000 nested empty arrays (the hub's limit)": nested(Math.floor((DEFAULT_LIMITS.jsonContainers - 1) / 60)),
    "one-character members": `{${Array.from({ length: members }, (_, i) => `"${i.toString(36)}":1`).join(",")}}`,
  };
}

interface SlicedRun {
  totalMs: number;
  longestMs: number;
  ticks: number;
  /** The reason the hub's limits refused the text for, if they did. */
  refused?: string;
}

/**
 * Parses `text` in slices under the hub's limits, yielding between them as the hub does;
 * the longest stretch between yields.
 */
async function slicedParse(text: string): Promise<SlicedRun> {
  let ticks = 0;
  let longestMs = 0;
  let refused: string | undefined;
  const started = performance.now();
  let since = started;
  try {
    await parseJsonInSlices(
      text,
      { maxContainers: DEFAULT_LIMITS.jsonContainers },
      {
        tick: async () => {
          ticks++;
          longestMs = Math.max(longestMs, performance.now() - since);
          await new Promise((resolve) => setImmediate(resolve));
          since = performance.now();
        },
      },
    );
  } catch (err) {
    refused = String((err as ContractError).details?.reason);
  }
  const ended = performance.now();
  return {
    totalMs: ended - started,
    longestMs: Math.max(longestMs, ended - since),
    ticks,
    ...(refused === undefined ? {} : { refused }),
  };
}
