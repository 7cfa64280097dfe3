import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { EXIT_USAGE } from "./Io.js";
import { main } from "./main.js";

const dir = mkdtempSync(join(tmpdir(), "read-user-file-"));
const absent = join(dir, "absent.file");

async function run(
  args: string[],
): Promise<{ code: number; doc: { code: string; details?: Record<string, unknown> } }> {
  let out = "";
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: () => undefined,
    cwd: dir,
    env: { CONTRACT_HUB_HOME: dir, HUB_URL: "http://127.0.0.1:9" },
  };
  const code = await main(args, io);
  return { code, doc: JSON.parse(out) };
}

// docs/cli.md: a file named on the command line that cannot be read is a usage error in every command.
test("every command that reads a file the user names: a missing one is exit 2, USAGE unreadable_file", async () => {
  const commands = [
    ["model", "check", absent, "true"],
    ["model", "parse", absent],
    ["predicate", "test", absent],
    ["init", "wc", "--model", absent],
  ];
  assert.equal((await run(["keygen", "--json"])).code, 0);
  for (const args of commands) {
    const r = await run([...args, "--json"]);
    assert.deepEqual(
      [r.code, r.doc.code, r.doc.details?.reason, r.doc.details?.file],
      [EXIT_USAGE, "USAGE", "unreadable_file", absent],
      args.join(" "),
    );
  }
});

test("model graph of a missing file exits 2", async () => {
  assert.equal(await main(["model", "graph", absent], { out: () => undefined, err: () => undefined }), EXIT_USAGE);
});
