/**
 * A page of the log (`GET /contracts/:id/log`, `/commits`, JSON-RPC `getLog`; docs/security.md
 * "Hostile load: expensive work") is written in pieces that let the event loop serve others between
 * entries. A page near its 8 MiB bound was one JSON.stringify of the whole page, which held
 * the event loop about 100 ms. The text is the same, byte for byte.
 *
 * How it is seen, by ordering: the page's first entry, as it is serialized, sends GET /health;
 * its last entry notes when it is serialized. The REST client reads nothing until /health is
 * answered, so a page written in pieces waits for it; a page serialized in one go serialized
 * its last entry before /health could be read. The JSON-RPC answer is one body, so its entries
 * each keep the loop for a whole slice (SLICE_MS) to make it yield between them.
 */
import assert from "node:assert/strict";
import { get } from "node:http";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { signRequest } from "../src/auth/signRequest.js";
import { buildCommit } from "../src/contract/engine.js";
import { SLICE_MS } from "../src/hub/heavy/TimeSlice.js";
import { listenRestAndRpc } from "./support/liveTestApp.js";
import { genesisFor, type TestApp, testApp } from "./support/testApps.js";

type Page = Awaited<ReturnType<TestApp["hub"]["getLog"]>>;

describe("long pages of the log", () => {
  let t: TestApp;
  let rpc: FastifyInstance;
  let restUrl: string;
  let rpcUrl: string;
  const big = "long-log-pages";
  /** "health" when GET /health was answered, "last" when the page's last entry was serialized. */
  let order: string[] = [];
  let watched: { page: Page; health: Promise<void> } | undefined;
  let busy = false;

  before(async () => {
    t = await testApp("rest");
    ({ restUrl, rpcUrl, rpc } = await listenRestAndRpc(t));
    // 90 commits of a 100,000-character value each: a page of the log stops near 8 MiB.
    const commits = [genesisFor(big, t.owner)];
    for (let i = 0; i < 90; i++) {
      const data = [{ method: "post" as const, path: `/v/${i}.text`, value: String(i % 10).repeat(100_000) }];
      commits.push(buildCommit(big, commits.at(-1)!.hash, data));
    }
    const pushed = await t.signed({ method: "POST", url: `/contracts/${big}/push`, body: { commits } });
    assert.equal(pushed.statusCode, 200);

    const getLog = t.hub.getLog.bind(t.hub);
    t.hub.getLog = async (...args: Parameters<typeof getLog>) => {
      const page = await getLog(...args);
      let answered: () => void = () => {};
      const health = new Promise<void>((resolve) => {
        answered = resolve;
      });
      watched = { page, health };
      let sent = false;
      for (const [i, entry] of page.commits.entries()) {
        // Non-enumerable, and answering a copy without itself: the page's JSON text is unchanged.
        Object.defineProperty(entry, "toJSON", {
          enumerable: false,
          value(this: object) {
            if (busy) for (const start = performance.now(); performance.now() - start <= SLICE_MS; );
            if (i === 0 && !sent) {
              sent = true;
              void fetch(`${restUrl}/health`).then(async (res) => {
                assert.equal(res.status, 200);
                await res.text();
                order.push("health");
                answered();
              });
            }
            if (i === page.commits.length - 1) order.push("last");
            return { ...this };
          },
        });
      }
      return page;
    };
  });
  after(async () => {
    await rpc.close();
    await t.close();
  });

  /** GET `path` over loopback, signed, reading nothing of the body until /health was answered. */
  function slowGet(path: string): Promise<{ status: number; body: string }> {
    const headers = signRequest(t.owner.access.seed, { method: "GET", url: path, body: "" });
    return new Promise((resolve, reject) => {
      get(`${restUrl}${path}`, { headers }, (res) => {
        res.pause();
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString("utf8") }));
        // Without a watched page (an error answer) there is nothing to wait for.
        void (watched?.health ?? Promise.resolve()).then(() => res.resume());
      }).on("error", reject);
    });
  }

  for (const route of ["log", "commits"]) {
    it(`GET /contracts/:id/${route}: /health is answered while a page near 8 MiB is written, same bytes`, async () => {
      order = [];
      watched = undefined;
      const { status, body } = await slowGet(`/contracts/${big}/${route}?limit=1000`);
      assert.equal(status, 200);
      assert.deepEqual(order, ["health", "last"]);
      const page = watched!.page;
      assert.ok(page.commits.length > 50 && page.commits.length < 91, `${page.commits.length} entries`);
      assert.ok(body.length > 7_000_000, `${body.length} characters`);
      assert.equal(body, JSON.stringify(page));
    });
  }

  it("JSON-RPC getLog: /health is answered between the entries, same bytes in the envelope", async () => {
    order = [];
    watched = undefined;
    busy = true;
    try {
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "getLog",
        params: { contract_id: big, limit: 1000 },
      });
      const headers = {
        "content-type": "application/json",
        ...signRequest(t.owner.access.seed, { method: "POST", url: "/", body: text }),
      };
      const res = await fetch(rpcUrl, { method: "POST", headers, body: text });
      assert.equal(res.status, 200);
      const body = await res.text();
      assert.deepEqual(order, ["health", "last"]);
      assert.equal(body, JSON.stringify({ jsonrpc: "2.0", id: 7, result: watched!.page }));
    } finally {
      busy = false;
    }
  });

  it("a short page and a refusal keep their shapes", async () => {
    const { id } = await t.contract();
    const url = `/contracts/${id}/log?limit=1`;
    const res = await fetch(`${restUrl}${url}`, {
      headers: signRequest(t.owner.access.seed, { method: "GET", url, body: "" }),
    });
    assert.equal(res.status, 200);
    const page = (await res.json()) as Page;
    assert.deepEqual([page.total, page.commits.length, page.commits[0]!.method], [1, 1, "genesis"]);
    const missing = await fetch(`${restUrl}/contracts/no-such-contract/log`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, "NOT_FOUND");
  });
});
