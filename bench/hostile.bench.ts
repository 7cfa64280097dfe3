/**
 * What the hub's hostile-input checks cost on the honest path: the duplicate-member scan on a
 * large push body (against JSON.parse of the same text, measured in the same run), and the
 * weak-key check per key (first sight, and again from the cache of strong keys).
 */
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { safeJsonParse } from "../src/contract/canonicalJson.js";
import { generateKeyPair } from "../src/contract/keys.js";
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
