import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

// A user's clone holds only this repository: the docs must state every rule themselves and
// link only to files that ship with them.
const root = resolve(import.meta.dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Words that point at the project's private design notes or a machine, never part of a clone. */
const OUTSIDE = [
  /PROTOCOL\.md/,
  /LANGUAGE\.md/,
  /contract-hub-spec/,
  /ARCHITECTURE\.md/,
  /node-ecosystem/,
  /\.\.\/shared/,
  /\/work\//,
  /§/,
  /\bspec \d/i,
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    out.add(
      (m[1] ?? "")
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    );
  }
  return out;
}

test("README and docs name nothing outside the repository", () => {
  const found: string[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(root, page), "utf8").split("\n");
    lines.forEach((line, i) => {
      for (const re of OUTSIDE) if (re.test(line)) found.push(`${page}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

test("every relative link in README and docs reaches a file (and heading) of the repository", () => {
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), "utf8");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1] ?? "";
      if (/^[a-z]+:/i.test(href)) continue;
      const [file = "", anchor] = href.split("#");
      const target = file === "" ? join(root, page) : resolve(dirname(join(root, page)), file);
      if (relative(root, target).startsWith("..") || !existsSync(target)) {
        broken.push(`${page}: ${href}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(anchor))
        broken.push(`${page}: ${href} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

/** Every source file a clone or an installed package carries, recursively. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true })
    .map((f) => `${dir}/${String(f)}`)
    .filter((f) => /\.(ts|js|mjs)$/.test(f));
}

test("source comments cite docs/ pages, never the private design notes", () => {
  // `§` stays allowed here for RFC sections ("RFC 9162 §2.1"), which anyone can read.
  const privateNotes = OUTSIDE.filter((re) => re.source !== "§");
  const found: string[] = [];
  for (const file of [...sources("src"), ...sources("bin")]) {
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (privateNotes.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
        if (/§/.test(line) && !/RFC \d+ §/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
});
