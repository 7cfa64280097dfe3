/**
 * The package as a user gets it: `npm pack`, `npm install -g` of the tarball into a temp
 * prefix, then the installed `contract-hub` command run from an unrelated folder (the
 * docs/cli.md walkthrough's first steps against a hub it started), and a plain JS project
 * that imports the SDK (with its log checks, run against that hub), the engine, the
 * language and the predicate runner (running a module in its worker thread) with their
 * types resolving.
 *
 * The build happens in a staging copy, so the repository's own dist/ and web/dist are never
 * rewritten while other tests read them. The install skips install scripts and reuses this
 * checkout's compiled better-sqlite3 (same Node, same version): compiling it again would take
 * minutes and test better-sqlite3, not this package.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { base64, predicateModules } from "./support/wasmModules.js";

const repo = resolve(import.meta.dirname, "..");
const work = mkdtempSync(join(tmpdir(), "pkg-install-"));
const prefix = join(work, "prefix");
const installed = join(prefix, "lib", "node_modules", "contract-hub");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The environment of a user who installed the package: its bin on PATH, not running sources. */
function userEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(prefix, "bin")}${delimiter}${process.env.PATH}`,
    CONTRACT_HUB_HOME: home,
  };
  delete env.CONTRACT_HUB_SOURCE;
  delete env.HUB_URL;
  delete env.NODE_OPTIONS;
  return env;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 300_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")} (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

let hub: ChildProcess | undefined;
let hubUrl = "";
const home = join(work, "home");
const elsewhere = join(work, "elsewhere");

before(async () => {
  const stage = join(work, "stage");
  mkdirSync(stage);
  for (const f of [
    "package.json",
    "README.md",
    "tsconfig.json",
    "tsconfig.build.json",
    "bin",
    "src",
    "docs",
    "web/dist",
  ]) {
    cpSync(join(repo, f), join(stage, f), { recursive: true, filter: (p) => !p.endsWith(".test.ts") });
  }
  symlinkSync(join(repo, "node_modules"), join(stage, "node_modules"), "dir");
  run(process.execPath, [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], stage);
  run(npm, ["pack", "--ignore-scripts", "--pack-destination", work], stage);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  assert.ok(tarball, "npm pack wrote a tarball");
  run(
    npm,
    [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--ignore-scripts",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      join(work, tarball),
    ],
    work,
  );
  const native = join("node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node");
  mkdirSync(join(installed, native, ".."), { recursive: true });
  cpSync(join(repo, native), join(installed, native));

  mkdirSync(elsewhere);
  hub = spawn(
    "contract-hub",
    ["start", "--port", "0", "--no-rpc", "--rate-limit", "0", "--data-dir", join(work, "data")],
    {
      cwd: elsewhere,
      env: { ...userEnv(home), HUB_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  hubUrl = await new Promise<string>((ok, fail) => {
    let out = "";
    let err = "";
    hub!.stderr!.on("data", (d) => {
      err += String(d);
    });
    hub!.stdout!.on("data", (d) => {
      out += String(d);
      const m = /^REST\s+(http:\/\/\S+)/m.exec(out);
      if (m) ok(m[1]!);
    });
    hub!.once("exit", (code) => fail(new Error(`installed hub exited with ${code}: ${err}`)));
  });
});

after(async () => {
  if (hub && hub.exitCode === null) {
    const gone = new Promise((ok) => hub!.once("exit", ok));
    hub.kill("SIGTERM");
    await gone;
  }
  rmSync(work, { recursive: true, force: true });
});

test("the installed package holds compiled code only, and no development dependency", () => {
  assert.ok(existsSync(join(installed, "dist", "cli", "main.js")));
  assert.ok(existsSync(join(installed, "dist", "client", "index.d.ts")));
  assert.ok(existsSync(join(installed, "web", "dist", "index.html")));
  assert.equal(existsSync(join(installed, "src")), false);
  for (const dev of ["tsx", "typescript", "vite", "esbuild"]) {
    assert.equal(existsSync(join(installed, "node_modules", dev)), false, dev);
  }
});

test("the installed command follows docs/cli.md from an unrelated folder", () => {
  const cli = (args: string[], cwd = elsewhere) => run("contract-hub", args, cwd, userEnv(home));
  assert.equal(cli(["--version"]).trim(), "0.1.0");
  cli(["keygen", "--name", "buyer"]);
  cli(["keygen", "--name", "seller"]);
  cli(["register", "--hub", hubUrl, "--key", "buyer"]);
  const init = JSON.parse(
    cli([
      "init",
      "escrow",
      "--template",
      "escrow",
      "--param",
      "buyer=buyer",
      "--param",
      "seller=seller",
      "--key",
      "buyer",
      "--hub",
      hubUrl,
      "--json",
    ]),
  );
  assert.equal(typeof init.contract_id, "string");
  const copy = join(elsewhere, "escrow");
  assert.equal(JSON.parse(cli(["status", "--json"], copy)).current_state, "init");
  cli(["commit", "--action", "DEPOSIT"], copy);
  assert.equal(JSON.parse(cli(["push", "--json"], copy)).pushed, 1);
  assert.equal(JSON.parse(cli(["status", "--json"], copy)).current_state, "deposited");
});

test("the installed hub serves the explorer", async () => {
  const res = await fetch(`${hubUrl}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/html/);
});

test("a plain JS project imports the SDK, engine, language and predicate runner, with types that resolve", async () => {
  const { okarg } = await predicateModules();
  const project = join(work, "consumer");
  mkdirSync(join(project, "node_modules"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }));
  symlinkSync(installed, join(project, "node_modules", "contract-hub"), "dir");
  symlinkSync(join(repo, "node_modules", "@types"), join(project, "node_modules", "@types"), "dir");
  writeFileSync(
    join(project, "main.js"),
    `// @ts-check
import { HubClient, checkHubLog, computeCommitHash, generateKeyPair, leafHash, verifyCheckpoint, verifyCommitSignature, verifyConsistency, verifyInclusion } from "contract-hub";
import { buildWireCommit, replayLog } from "contract-hub/engine";
import { parseModel } from "contract-hub/language";
import { createWasmRunner } from "contract-hub/predicates";

const client = new HubClient({ url: process.argv[2] ?? "" });
const health = await client.health();
/** @type {string} */
const hash = computeCommitHash("c1", null, []);
// docs/engine.md: buildWireCommit builds a push-format commit with its hash and signatures.
const pair = generateKeyPair();
/** @type {import("contract-hub/engine").CommitSigner} */
const signer = { key: pair.seed };
const wire = buildWireCommit("c1", null, [], [signer]);
const signed = Object.values(wire.head.signatures).map((s) => verifyCommitSignature(wire.hash, pair.publicKey, s));
// The log checks the docs promise: the whole check, and the verifiers it is made of.
const { origin, public_key } = await client.checkpointKey();
/** @type {import("contract-hub").PinnedLogKey} */
const pinned = { origin, public_key };
/** @type {import("contract-hub").VerifiedCheckpoint} */
const kept = await checkHubLog(client, pinned, null, null);
const note = verifyCheckpoint(kept.note, origin, Buffer.from(public_key.replace(/^ed25519:/, ""), "hex"));
const root = Buffer.from(kept.root, "hex");
const log = {
  size: kept.size,
  same: note.size === kept.size && note.root.equals(root),
  consistent: verifyConsistency(kept.size, kept.size, root, root, []),
  included: verifyInclusion(leafHash(Buffer.alloc(32)), 0, 1, [], leafHash(Buffer.alloc(32))),
};
// docs/engine.md: the runner of custom predicates, its worker thread started from the installed files.
const wasm = createWasmRunner({ workers: 1 });
const commit = { hash, parent: null, data: [], labels: [], signers: [], timestamp: 1 };
const predicate = await wasm(Buffer.from("${base64(okarg)}", "base64"), { args: ["ok"], contract_id: "c1", commit, state: {} });
await wasm.close();
console.log(JSON.stringify({ status: health.status, hash, signed, model: parseModel("model m { a -> b }").name, replay: typeof replayLog, log, predicate }));
`,
  );
  writeFileSync(
    join(project, "wrong.js"),
    `// @ts-check
import { HubClient, checkHubLog } from "contract-hub";
import { createWasmRunner } from "contract-hub/predicates";
// @ts-expect-error: the SDK is typed, so a number is no URL (unused if the types were missing)
new HubClient({ url: 42 });
// @ts-expect-error: a pinned log key needs its public key
await checkHubLog(new HubClient({ url: "" }), { origin: "o" }, null, null);
// @ts-expect-error: the runner's other limits are not the caller's to change
createWasmRunner({ timeoutMs: 60000 });
`,
  );
  const out = JSON.parse(run(process.execPath, ["main.js", hubUrl], project, userEnv(home)));
  assert.equal(out.status, "ok");
  assert.match(out.hash, /^[0-9a-f]{64}$/);
  assert.deepEqual(out.signed, [true]);
  assert.equal(out.model, "m");
  assert.equal(out.replay, "function");
  assert.ok(out.log.size > 0, "the hub's checkpoint covers the commits pushed above");
  assert.deepEqual([out.log.same, out.log.consistent, out.log.included], [true, true, true]);
  assert.equal(out.predicate.valid, true);
  assert.ok(out.predicate.gas_used > 0);
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  const flags = [
    "--noEmit",
    "--allowJs",
    "--checkJs",
    "--strict",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
  ];
  run(process.execPath, [tsc, ...flags, "--skipLibCheck", "main.js", "wrong.js"], project);
});
