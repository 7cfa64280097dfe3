import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";

// Scripts and tests match `details.reason`, never the message (docs/api.md, "Errors"), so a
// reason the code gives must be named somewhere a user reads. Each `reason: "<id>"` written
// in the sources (tests aside) must appear, as `<id>`, in README.md or docs/.
const root = resolve(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("every details.reason the code gives is named in the docs", () => {
  const docs = [
    readFileSync(join(root, "README.md"), "utf8"),
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => readFileSync(join(root, "docs", f), "utf8")),
  ].join("\n");
  const reasons = new Set<string>();
  for (const file of sources(join(root, "src"))) {
    for (const m of readFileSync(file, "utf8").matchAll(/\breason: "([a-z0-9_]+)"/g)) reasons.add(m[1]!);
  }
  assert.ok(reasons.size > 50, `found only ${reasons.size} reasons: the pattern no longer matches the sources`);
  const undocumented = [...reasons].filter((r) => !docs.includes(`\`${r}\``) && !docs.includes(`"${r}"`)).sort();
  assert.deepEqual(undocumented, []);
});
