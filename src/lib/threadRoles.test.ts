import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { announceThread, linuxThreadId, readThreadRoles, THREAD_ROLES_ENV } from "./threadRoles.js";

const dir = mkdtempSync(join(tmpdir(), "thread-roles-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const linux = process.platform === "linux";

test("linuxThreadId: the main thread's id is the process id", { skip: !linux }, () => {
  assert.equal(linuxThreadId(), process.pid);
});

test("announceThread never stops a worker: a file it cannot write is passed over; none read is no roles", () => {
  const file = join(dir, "no such directory", "roles.jsonl");
  announceThread("verify", { [THREAD_ROLES_ENV]: file });
  assert.equal(existsSync(file), false);
  assert.deepEqual(readThreadRoles(file), new Map());
});

test("announceThread appends the role and thread id; readThreadRoles maps each role to its ids", {
  skip: !linux,
}, () => {
  const file = join(dir, "roles.jsonl");
  const env = { [THREAD_ROLES_ENV]: file };
  announceThread("verify", env);
  announceThread("writer", env);
  announceThread("verify", env);
  const roles = readThreadRoles(file);
  assert.deepEqual([...roles.keys()].sort(), ["verify", "writer"]);
  assert.deepEqual(roles.get("verify"), [process.pid]);
  assert.deepEqual(roles.get("writer"), [process.pid]);
});
