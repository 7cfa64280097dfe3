/**
 * What a push holds per commit until its append (docs/storage.md): the shape check keeps a
 * commit already in normal form as it came instead of copying it, and a signature verdict is
 * the array of keys it was verified with. Copies were kept alive beside the parsed body and
 * made each young-generation collection of a 10,000-commit push copy both.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildWireCommit } from "./buildWireCommit.js";
import type { WireCommit } from "./Commit.js";
import { generateKeyPair } from "./keys.js";
import { validateCommitShape } from "./validateCommitShape.js";
import { SignatureBatch } from "./verifySigners.js";

const ID = "c_shared_commit_parts";
const PARENT = "22".repeat(32);
const signer = generateKeyPair();
const KEY = signer.publicKey.toString("hex");

function signed(data: WireCommit["data"]): WireCommit {
  return buildWireCommit(ID, PARENT, data, [{ key: signer.seed, as: "/users/buyer.id" }]);
}

test("a parsed commit in normal form comes back as the same object, with the same operations and head", () => {
  const sent = signed([
    { method: "post", path: "/notes/a.text", value: "shipped" },
    { method: "action", value: "DEPOSIT" },
  ]);
  const raw = JSON.parse(JSON.stringify(sent)) as WireCommit;
  const shaped = validateCommitShape(raw, { contractId: ID });
  assert.equal(shaped, raw);
  assert.equal(shaped.data, raw.data);
  assert.equal(shaped.data[0], raw.data[0]);
  assert.equal(shaped.head, raw.head);
  assert.equal(shaped.head.signatures, raw.head.signatures);
  assert.deepEqual(shaped, sent);
});

test("a commit not in normal form comes back as a normalized copy; what was sent is left as it was", () => {
  const sent = signed([
    { method: "post", path: "/notes/a.text", value: "shipped" },
    { method: "action", value: "DEPOSIT" },
  ]);
  const signature = sent.head.signatures["/users/buyer.id"]!;
  type Raw = {
    data: Record<string, unknown>[];
    head: { signatures: Record<string, string>; [field: string]: unknown };
    [field: string]: unknown;
  };
  // Each change is one the normal form undoes: an action label in `action`, an operation's
  // fields in another order, a head field the hub drops, a field of the commit it drops.
  const sameAsSent: Array<(c: Raw) => void> = [
    (c) => {
      c.data[1] = { method: "action", action: "DEPOSIT" };
    },
    (c) => {
      c.data[0] = { value: "shipped", method: "post", path: "/notes/a.text" };
    },
    (c) => {
      c.head.note = 1;
    },
    (c) => {
      c.note = 1;
    },
  ];
  const check = (change: (c: Raw) => void): WireCommit => {
    const raw = JSON.parse(JSON.stringify(sent)) as Raw;
    change(raw);
    const before = JSON.stringify(raw);
    const shaped = validateCommitShape(raw, { contractId: ID });
    assert.notEqual(shaped, raw);
    assert.equal(JSON.stringify(raw), before);
    return shaped;
  };
  for (const change of sameAsSent) assert.deepEqual(check(change), sent);
  // An identity signer without its prefix is written with it.
  const shaped = check((c) => {
    c.head.signatures = { [KEY]: signature };
  });
  assert.deepEqual(shaped.head.signatures, { [`ed25519:${KEY}`]: signature });
});

test("a verdict for one signer is the array of keys the batch resolved, not a copy of it", async () => {
  const batch = new SignatureBatch(new Map([["/users/buyer.id", KEY]]));
  const c = validateCommitShape(signed([{ method: "action", value: "DEPOSIT" }]), { contractId: ID });
  const verdict = await batch.add(c);
  assert.deepEqual(verdict, [KEY]);
  assert.equal(verdict, batch.keys[0]);
});
