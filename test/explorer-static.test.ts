/**
 * The explorer's static server (src/http/serveExplorer.ts): content types and caching headers,
 * traversal and symlink escapes refused, a clear page when the build is missing, and the API
 * routes of the real REST app unaffected.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { createBaseApp } from "../src/http/createBaseApp.js";
import type { HttpOptions } from "../src/http/HttpOptions.js";
import { EXPLORER_CSP, serveExplorer } from "../src/http/serveExplorer.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { type LiveHub, startLiveHub } from "./e2e-transports.js";

const SECRET = "top secret outside the root";

async function appServing(root: string): Promise<FastifyInstance> {
  // The explorer needs no hub; unmatched URLs reach the not-found route, which identifies the caller.
  const authenticator = { identify: async () => ANONYMOUS, authenticate: async () => ANONYMOUS };
  const app = await createBaseApp({ rateLimit: 0, logger: false, authenticator } as unknown as HttpOptions);
  serveExplorer(app, { root });
  await app.ready();
  return app;
}

describe("explorer static server", () => {
  let dir: string;
  let app: FastifyInstance;
  let missing: FastifyInstance;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "explorer-static-"));
    const root = join(dir, "dist");
    mkdirSync(join(root, "assets"), { recursive: true });
    writeFileSync(join(root, "index.html"), "<!doctype html><title>explorer</title><main id=app></main>");
    writeFileSync(join(root, "assets", "index-abc.js"), "console.log(1)");
    writeFileSync(join(root, "assets", "index-abc.css"), "body{}");
    writeFileSync(join(root, "assets", "logo.svg"), "<svg/>");
    writeFileSync(join(root, "assets", "blob.bin"), "x");
    writeFileSync(join(dir, "secret.txt"), SECRET);
    symlinkSync(join(dir, "secret.txt"), join(root, "assets", "link.txt"));
    app = await appServing(root);
    missing = await appServing(join(dir, "no-such-dist"));
  });
  after(async () => {
    await app.close();
    await missing.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page at / with revalidation, and hashed assets as immutable, each with its content type", async () => {
    const page = await app.inject({ method: "GET", url: "/" });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(page.headers["cache-control"], "no-cache");
    assert.equal(page.headers["content-security-policy"], EXPLORER_CSP);
    assert.match(page.body, /<main id=app>/);
    for (const [file, type] of [
      ["index-abc.js", "text/javascript; charset=utf-8"],
      ["index-abc.css", "text/css; charset=utf-8"],
      ["logo.svg", "image/svg+xml"],
      ["blob.bin", "application/octet-stream"],
    ]) {
      const res = await app.inject({ method: "GET", url: `/assets/${file}` });
      assert.equal(res.statusCode, 200, file);
      assert.equal(res.headers["content-type"], type, file);
      assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable", file);
      assert.equal(res.headers["x-content-type-options"], "nosniff");
    }
  });

  it("refuses paths that leave the root (dot segments, encoded, backslashes, symlinks) and unknown files", async () => {
    for (const url of [
      "/assets/../../secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/assets/..%5c..%5csecret.txt",
      "/assets/%00index-abc.js",
      "/assets/link.txt",
      "/assets/",
      "/assets/nope.js",
      "/assets/../index.html",
    ]) {
      const res = await app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 404, `${url} → ${res.statusCode} ${res.body}`);
      assert.ok(!res.body.includes(SECRET), url);
      assert.equal(JSON.parse(res.body).code, "NOT_FOUND", url);
    }
  });

  it("says how to build the explorer when web/dist is missing", async () => {
    const res = await missing.inject({ method: "GET", url: "/" });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers["content-type"] as string, /^text\/html/);
    assert.match(res.body, /npm run build:web/);
    assert.equal((await missing.inject({ method: "GET", url: "/assets/index-abc.js" })).statusCode, 404);
  });
});

describe("explorer routes in the real REST app", () => {
  let live: LiveHub;
  before(async () => {
    live = await startLiveHub();
  });
  after(async () => live.close());

  it("leaves the API routes as they were: JSON answers, JSON 404s, OpenAPI without the explorer", async () => {
    const url = live.servers.restUrl;
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, "ok");
    const contracts = await fetch(`${url}/contracts`);
    assert.equal(contracts.status, 200);
    assert.deepEqual(await contracts.json(), { contracts: [], total: 0 });
    const nope = await fetch(`${url}/no-such-route`);
    assert.equal(nope.status, 404);
    assert.equal(((await nope.json()) as { code: string }).code, "NOT_FOUND");
    const api = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok(api.paths["/contracts"], "API routes are documented");
    assert.equal(api.paths["/"], undefined, "the explorer is not part of the API document");
    assert.equal(api.paths["/assets/*"] ?? api.paths["/assets/{*}"], undefined);
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await page.text(), /contract-hub/);
  });
});
