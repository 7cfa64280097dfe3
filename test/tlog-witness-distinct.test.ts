/**
 * A hub's witnesses are counted by key (docs/transparency.md, "A hub that requires
 * witnesses"): one witness named twice in `--witness` (two addresses of one witness, or a
 * pasted line) answered both submissions, and its two identical lines met a quorum of 2, so
 * a 2-of-2 hub served checkpoints only one witness had cosigned.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadStartConfig } from "../src/cli/config.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { CosignedCheckpoints } from "../src/hub/CosignedCheckpoints.js";
import { witnessVerifierKey } from "../src/tlog/cosignature.js";

const publicKey = generateKeyPair().publicKey;
const other = generateKeyPair().publicKey;
const spec = (name: string, key: Buffer, url: string) => `${witnessVerifierKey({ name, publicKey: key })}@${url}`;

test("start refuses one witness key given twice, under one name or two", () => {
  const ok = loadStartConfig({
    witness: [spec("w.test/a", publicKey, "http://a"), spec("w.test/b", other, "http://b")],
  });
  assert.equal(ok.witnesses.length, 2);
  for (const witness of [
    [spec("w.test/a", publicKey, "http://a"), spec("w.test/a", publicKey, "http://a")],
    [spec("w.test/a", publicKey, "http://a"), spec("w.test/a", publicKey, "http://a2")],
    [spec("w.test/a", publicKey, "http://a"), spec("w.test/b", publicKey, "http://b")],
  ]) {
    assert.throws(
      () => loadStartConfig({ witness }, {}),
      (e: unknown) => e instanceof ConfigError && /given twice/.test(e.message),
    );
    assert.throws(
      () => loadStartConfig({}, { HUB_WITNESSES: witness.join(" ") }),
      (e: unknown) => e instanceof ConfigError && /HUB_WITNESSES/.test(e.message),
    );
  }
});

test("a hub given one witness key twice is refused before any round", () => {
  const w = (name: string) => ({
    key: { name, publicKey },
    url: "http://w",
    submit: () => Promise.reject(new Error("not asked")),
  });
  const parts = { store: {} as never, logKey: () => Promise.reject(new Error("not asked")) };
  assert.throws(
    () => new CosignedCheckpoints({ witnesses: [w("w.test/a"), w("w.test/a")], quorum: 2 }, parts, () => {}),
    RangeError,
  );
  assert.throws(
    () => new CosignedCheckpoints({ witnesses: [w("w.test/a"), w("w.test/b")], quorum: 1 }, parts, () => {}),
    RangeError,
  );
});
