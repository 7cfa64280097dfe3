import assert from "node:assert/strict";
import { test } from "node:test";
import { assertContractError } from "./assertContractError.js";
import type { Operation } from "./Commit.js";
import { generateKeyPair } from "./keys.js";
import { withLimits } from "./limits.js";
import {
  checkOperationPaths,
  checkPathSyntax,
  checkValueForPath,
  KNOWN_EXTENSIONS,
  pathExtension,
} from "./pathTypes.js";

const ID = generateKeyPair().publicKey.toString("hex");
const EMPTY_WASM = Buffer.from("0061736d01000000", "hex").toString("base64");
const MODEL = "model m { a -> b [+GO] b -> b }";
const RULE = "export default rule { formula { <+GO> true } }";

test("extensions are recognised by the last segment's suffix", () => {
  assert.equal(pathExtension("/users/buyer.id"), ".id");
  assert.equal(pathExtension("/a.json/b.text"), ".text");
  assert.equal(pathExtension("/notes/readme.txt"), null);
  assert.equal(pathExtension("/notes/.id"), null);
  assert.equal(pathExtension("/notes/id"), null);
  assert.equal(pathExtension("/x.ID"), null);
  assert.equal(KNOWN_EXTENSIONS.length, 9);
});

test("path syntax", () => {
  for (const ok of ["/a.text", "/a/b-c/d_e.f.json", "/_code/custom/p.wasm"]) checkPathSyntax(ok);
  for (const bad of [
    "a.text",
    "/",
    "//a.text",
    "/a/.text/",
    "/a b.text",
    "/a/../b.text",
    "/a/./b.text",
    "/a/é.text",
    "/a\n.text",
  ]) {
    assert.equal(assertContractError(() => checkPathSyntax(bad), "VALIDATION_FAILED", "path_syntax").path, bad);
  }
});

test("a weak key at an .id path is VALIDATION_FAILED weak_key naming the path", () => {
  for (const weak of ["00".repeat(32), `01${"00".repeat(31)}`, "ab".repeat(32)]) {
    const details = assertContractError(() => checkValueForPath("/u/a.id", weak), "VALIDATION_FAILED", "weak_key");
    assert.equal(details.path, "/u/a.id");
  }
});

test("values must match their extension", () => {
  const good: [string, unknown][] = [
    ["/u/a.id", ID],
    ["/t.text", ""],
    ["/t.md", "# hi"],
    ["/b.bool", false],
    ["/j.json", null],
    ["/j.json", { a: [1, "x"] }],
    ["/d.date", "2024-02-29"],
    ["/d.datetime", "2024-02-29T10:00:00+01:00"],
    ["/_code/custom/p.wasm", EMPTY_WASM],
    ["/m.modality", MODEL],
    ["/r.modality", RULE],
  ];
  for (const [path, value] of good) checkValueForPath(path, value);
  const bad: [string, unknown][] = [
    ["/u/a.id", ID.toUpperCase()],
    ["/u/a.id", `ed25519:${ID}`],
    ["/u/a.id", ID.slice(2)],
    ["/t.text", 5],
    ["/t.md", null],
    ["/b.bool", "true"],
    ["/b.bool", 1],
    ["/d.date", "2023-02-29"],
    ["/d.date", 20240101],
    ["/d.datetime", "2024-02-29T10:00:00"],
    ["/p.wasm", "not base64!"],
    ["/p.wasm", 7],
    ["/m.modality", 3],
  ];
  for (const [path, value] of bad) {
    const d = assertContractError(() => checkValueForPath(path, value), "VALIDATION_FAILED", "value_type");
    assert.equal(d.path, path);
    assert.equal(d.extension, pathExtension(path));
  }
});

test(".wasm must be a module WebAssembly accepts; .modality must parse", () => {
  assertContractError(
    () => checkValueForPath("/p.wasm", Buffer.from("0061736d02000000", "hex").toString("base64")),
    "VALIDATION_FAILED",
    "wasm_invalid",
  );
  const d = assertContractError(
    () => checkValueForPath("/m.modality", "model m { a -> }"),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  assert.deepEqual([d.line, d.column], [1, 16]);
});

test("a large .wasm value is checked like a small one (the push route takes bodies of many MiB)", () => {
  // An empty module plus a 6 MiB custom section: the base64 check once recursed per 4
  // characters and overflowed the stack (500 INTERNAL) on values of about 6 MB.
  const size = 6 * 1024 * 1024;
  const section = Buffer.concat([
    Buffer.from([0x00, 0x80, 0x80, 0x80, 0x03, 0x01]),
    Buffer.from("x"),
    Buffer.alloc(size - 2),
  ]);
  const big = Buffer.concat([Buffer.from("0061736d01000000", "hex"), section]).toString("base64");
  checkValueForPath("/_code/custom/p.wasm", big);
  assertContractError(() => checkValueForPath("/p.wasm", `${big.slice(0, -4)}A=A=`), "VALIDATION_FAILED", "value_type");
  assertContractError(() => checkValueForPath("/p.wasm", `${big}A`), "VALIDATION_FAILED", "value_type");
});

const op = (o: Record<string, unknown>) => o as unknown as Operation;

test("a .modality value over the rule limit must be a model: the rule parse is not tried", () => {
  const rule = `export default rule { formula { <${"+GO ".repeat(60)}> true } }`;
  const roomy = withLimits({ ruleTextBytes: rule.length });
  checkValueForPath("/r.modality", rule, roomy);
  const tight = withLimits({ ruleTextBytes: rule.length - 1 });
  const d = assertContractError(
    () => checkValueForPath("/r.modality", rule, tight),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  assert.deepEqual(d.tried, ["model"]);
  // At its own path a rule over the limit is refused for its size, before any parse.
  assertContractError(
    () => checkOperationPaths(op({ method: "rule", path: "/rules/r.modality", value: rule }), tight),
    "PAYLOAD_TOO_LARGE",
    "text_too_large",
  );
  const small = assertContractError(
    () => checkValueForPath("/m.modality", "model m { a -> }"),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  assert.deepEqual(small.tried, ["model", "rule"]);
});

test("posts: typed paths outside the reserved prefixes", () => {
  checkOperationPaths(op({ method: "post", path: "/users/buyer.id", value: ID }));
  for (const path of ["/model/x.text", "/rules/r.modality", "/reposts/c1/a.text"]) {
    assertContractError(
      () => checkOperationPaths(op({ method: "post", path, value: "x" })),
      "VALIDATION_FAILED",
      "reserved_path",
    );
  }
  assertContractError(
    () => checkOperationPaths(op({ method: "post", path: "/a.txt", value: "x" })),
    "VALIDATION_FAILED",
    "unknown_extension",
  );
});

test("rule, model and repost paths", () => {
  checkOperationPaths(op({ method: "rule", path: "/rules/r1.modality", value: RULE }));
  checkOperationPaths(op({ method: "rule", value: RULE }));
  assertContractError(
    () => checkOperationPaths(op({ method: "rule", path: "/rules/auth.txt", value: RULE })),
    "VALIDATION_FAILED",
    "rule_path",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "rule", path: "/rules/a/b.modality", value: RULE })),
    "VALIDATION_FAILED",
    "rule_path",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "rule", path: "/rules/r.modality", value: MODEL })),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "rule", path: "/rules/r.modality", value: 1 })),
    "VALIDATION_FAILED",
    "value_type",
  );

  checkOperationPaths(op({ method: "model", path: "/model/default.modality", value: MODEL }));
  checkOperationPaths(op({ method: "model", value: MODEL }));
  assertContractError(
    () => checkOperationPaths(op({ method: "model", path: "/model/other.modality", value: MODEL })),
    "VALIDATION_FAILED",
    "model_path",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "model", value: RULE })),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "model", value: `${MODEL}\n${MODEL}` })),
    "VALIDATION_FAILED",
    "modality_parse",
  );

  checkOperationPaths(op({ method: "repost", path: "/reposts/c_src/users/buyer.id", value: ID }));
  assertContractError(
    () => checkOperationPaths(op({ method: "repost", path: "/reposted/c/a.text", value: "x" })),
    "VALIDATION_FAILED",
    "repost_path",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "repost", path: "/reposts/c.a/a.text", value: "x" })),
    "VALIDATION_FAILED",
    "repost_path",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "repost", path: "/reposts/c1", value: "x" })),
    "VALIDATION_FAILED",
    "repost_path",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "repost", path: "/reposts/c1/a.bool", value: "x" })),
    "VALIDATION_FAILED",
    "value_type",
  );
});

test("genesis model and rules must parse; text sizes are limited", () => {
  checkOperationPaths(op({ method: "genesis", value: { model: MODEL, rules: [RULE], owner: ID } }));
  checkOperationPaths(op({ method: "genesis", value: { model: null, rules: [], owner: ID } }));
  assertContractError(
    () => checkOperationPaths(op({ method: "genesis", value: { model: RULE, rules: [], owner: ID } })),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  assertContractError(
    () => checkOperationPaths(op({ method: "genesis", value: { model: null, rules: ["rule {"], owner: ID } })),
    "VALIDATION_FAILED",
    "modality_parse",
  );
  const limits = withLimits({ ruleTextBytes: 10 });
  const d = assertContractError(
    () => checkOperationPaths(op({ method: "rule", value: RULE }), limits),
    "PAYLOAD_TOO_LARGE",
    "text_too_large",
  );
  assert.equal(d.limit, "ruleTextBytes");
});
