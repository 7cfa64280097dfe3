import { EventEmitter, once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted reply: an HTTP status and JSON (or raw text) body, or no answer at all. */
export interface FakeReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (the client's timeout must fire). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the client sent
  body: any;
}

/** An Anthropic Messages API answer holding `text`. */
export function anthropicReply(text: string): FakeReply {
  return { body: { id: "msg_fake", type: "message", role: "assistant", content: [{ type: "text", text }] } };
}

/** An OpenAI chat completion holding `text`. */
export function openAiReply(text: string): FakeReply {
  return { body: { id: "chatcmpl_fake", choices: [{ index: 0, message: { role: "assistant", content: text } }] } };
}

/**
 * A real HTTP language-model fake on loopback (port 0) for tests: replies in the scripted
 * order (the last one repeats), records every request, and closes hanging connections.
 */
export class FakeLlmServer {
  readonly requests: RecordedRequest[] = [];
  /** Requests left unanswered (`hang`) whose connection has closed: the client gave up on them. */
  closedHangs = 0;
  private replies: FakeReply[] = [];
  /** "change" after each recorded request and each closed hanging connection (see `until`). */
  private readonly changes = new EventEmitter();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeLlmServer> {
    let fake: FakeLlmServer | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => fake!.answer(req.method ?? "", req.url ?? "", req.headers, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeLlmServer(server, `http://127.0.0.1:${port}`);
    return fake;
  }

  /** Scripts the next replies (replacing any left). */
  script(...replies: FakeReply[]): this {
    this.replies = replies;
    return this;
  }

  private answer(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    raw: Buffer,
    res: import("node:http").ServerResponse,
  ): void {
    let body: unknown = raw.toString("utf8");
    try {
      body = JSON.parse(body as string);
    } catch {
      // keep the text
    }
    this.requests.push({ method, path, headers, body });
    this.changes.emit("change");
    const reply = (this.replies.length > 1 ? this.replies.shift() : this.replies[0]) ?? { status: 500 };
    if (reply.hang) {
      res.once("close", () => {
        this.closedHangs++;
        this.changes.emit("change");
      });
      return;
    }
    const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    res.end(text);
  }

  /** Resolves once `done()` holds, checked now and after each request and each closed hanging connection. */
  async until(done: (fake: this) => boolean): Promise<void> {
    while (!done(this)) await once(this.changes, "change");
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
