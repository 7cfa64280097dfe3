/**
 * The witness's HTTP interface (C2SP tlog-witness, docs/transparency.md):
 *
 * - `POST /add-checkpoint` — the old size, a consistency proof and a checkpoint; 200 with the
 *   cosignature line, 409 (`text/x.tlog.size`) with the size cosigned before, 400 malformed,
 *   403 bad signature, 404 unknown log, 422 proof or root refused.
 * - `GET /<hex SHA-256 of an origin>/checkpoint` — the newest checkpoint cosigned for that log.
 * - `GET /health` — the witness's name, verifier key and the size it cosigned for each log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TrustedLog, Witness } from "./Witness.js";

/** A request body larger than this is refused (a proof of 63 hashes and a note fit in 8 KiB). */
const MAX_BODY = 64 * 1024;

const TEXT = "text/plain; charset=utf-8";

function reply(res: ServerResponse, status: number, body: string, type = TEXT): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** The request body as text; null when it is too large, undefined when it is not UTF-8 (a signed note is). */
function readBody(req: IncomingMessage): Promise<string | null | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        // Answered 413 without reading the rest; the connection closes after the answer.
        req.off("data", onData);
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(c);
    };
    req.on("data", onData);
    req.on("end", () => {
      try {
        resolve(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks)));
      } catch {
        resolve(undefined);
      }
    });
    req.on("error", reject);
  });
}

async function handle(witness: Witness, logs: readonly TrustedLog[], req: IncomingMessage, res: ServerResponse) {
  const path = (req.url ?? "/").split("?")[0]!;
  if (path === "/add-checkpoint") {
    if (req.method !== "POST") return reply(res, 405, "add-checkpoint takes POST\n");
    const text = await readBody(req);
    if (text === null) {
      res.setHeader("connection", "close");
      return reply(res, 413, `the body exceeds ${MAX_BODY} bytes\n`);
    }
    if (text === undefined) return reply(res, 400, "the body is not UTF-8\n");
    const answer = witness.addText(text);
    if (answer.status === 200) return reply(res, 200, answer.lines);
    if (answer.status === 409) return reply(res, 409, `${answer.knownSize}\n`, "text/x.tlog.size");
    return reply(res, answer.status, `${answer.message}\n`);
  }
  if (req.method !== "GET") return reply(res, 405, "only GET here\n");
  const monitored = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path);
  if (monitored !== null) {
    const note = witness.cosignedCheckpoint(monitored[1]!);
    return note === undefined ? reply(res, 404, "no checkpoint cosigned for that log\n") : reply(res, 200, note);
  }
  if (path === "/health") {
    const body = {
      status: "ok",
      name: witness.key.name,
      verifier_key: witness.verifierKey(),
      logs: logs.map((l) => ({ origin: l.origin, cosigned_size: witness.cosignedSize(l.origin) })),
    };
    return reply(res, 200, `${JSON.stringify(body)}\n`, "application/json");
  }
  return reply(res, 404, "not found\n");
}

/** Serves `witness` on `host:port` (0: any free port); resolves with the server and its URL. */
export async function serveWitness(
  witness: Witness,
  logs: readonly TrustedLog[],
  host: string,
  port: number,
  onError: (err: unknown) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handle(witness, logs, req, res).catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) reply(res, 500, "internal error\n");
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { server, url: `http://${shownHost}:${address.port}` };
}
