/**
 * The hub explorer (docs/explorer.md) on the REST port: `GET /` answers the built page and
 * `GET /assets/*` its files from `web/dist`. Only those two routes are added, so no API route
 * can be shadowed. The build is looked up per request: a hub started before `npm run build:web`
 * serves the page as soon as it exists, and without it `GET /` says how to build it.
 */
import { readFile, realpath } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ContractError } from "../contract/ContractError.js";

/** `web/dist` of this package (src/http → ../../web/dist). */
export const DEFAULT_EXPLORER_ROOT = fileURLToPath(new URL("../../web/dist/", import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** Vite names assets by content hash, so they never change under one URL; the page itself must be revalidated. */
const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

/**
 * The page's Content-Security-Policy: its own scripts, styles, requests and WebSocket only, no
 * inline script. The page writes every contract value as text (never as HTML), and this holds
 * even if that ever slipped: markup a contract carries could not run a script or load anything.
 */
export const EXPLORER_CSP =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'";

const MISSING_BUILD = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>contract-hub explorer</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>contract-hub</h1>
<p>The explorer has not been built. Run <code>npm run build:web</code> in the hub's directory
(<code>npm install</code> does it too), then reload this page.</p>
<p>The API is available as usual: <a href="/health">/health</a>, <a href="/openapi.json">/openapi.json</a>.</p>
</body></html>
`;

const notFound = (what: string) =>
  new ContractError("NOT_FOUND", `No explorer asset ${JSON.stringify(what)}`, { reason: "no_asset" });

/**
 * The file under `root` that `relative` names, or null when it escapes `root` or is not a
 * plain file. Both sides go through realpath so a symlink cannot lead outside either.
 */
export async function resolveAsset(root: string, relative: string): Promise<string | null> {
  if (relative.includes("\0") || relative.includes("\\")) return null;
  if (relative.split("/").some((seg) => seg === ".." || seg === ".")) return null;
  let base: string;
  let file: string;
  try {
    base = await realpath(root);
    file = await realpath(resolve(base, relative));
  } catch {
    return null;
  }
  return file.startsWith(base + sep) ? file : null;
}

async function sendFile(reply: FastifyReply, file: string, cache: string): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    throw notFound(file);
  }
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
  return reply
    .code(200)
    .header("content-type", type)
    .header("cache-control", cache)
    .header("x-content-type-options", "nosniff")
    .send(body);
}

/** Registers `GET /` and `GET /assets/*` serving the explorer from `root` (default: web/dist). */
export function serveExplorer(app: FastifyInstance, options: { root?: string } = {}): void {
  const root = options.root ?? DEFAULT_EXPLORER_ROOT;
  const route = { config: { auth: "none" as const }, schema: { hide: true } };
  app.get("/", route, async (_request, reply) => {
    const index = await resolveAsset(root, "index.html");
    if (index === null) {
      return reply
        .code(200)
        .header("content-type", CONTENT_TYPES[".html"]!)
        .header("cache-control", REVALIDATE)
        .send(MISSING_BUILD);
    }
    return sendFile(reply.header("content-security-policy", EXPLORER_CSP), index, REVALIDATE);
  });
  app.get("/assets/*", route, async (request, reply) => {
    const rest = (request.params as { "*"?: string })["*"] ?? "";
    const file = await resolveAsset(root, `assets/${rest}`);
    if (file === null) throw notFound(`/assets/${rest}`);
    return sendFile(reply, file, IMMUTABLE);
  });
}
