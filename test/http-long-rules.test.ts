/**
 * Commits carrying many big rule texts (docs/security.md, "Expensive requests"): each 64 KiB
 * rule was parsed on the event loop by the commit's shape check and again by the rule's
 * decision, all of one commit's rules in one go, so 15 of them held the event loop 150–575 ms
 * and `GET /health` waited as long. Now the hub parses each big rule text once, one text per
 * slice before the shape check (ruleParseMemo.ts), and the decisions tick between big rules.
 *
 * How it is seen, by ordering (as in http-long-pushes.test.ts): `GET /health` is sent as the
 * hub's work on the request begins, and the store's append of the commit (which comes after
 * the shape check and the decision) notes whether its answer had come back by then. And by
 * count: each big rule text is parsed once per request, a push's too: its decisions come after
 * every commit's shape check, and the hub remembered only 64 parses, so a push of more big
 * rules than that parsed those of its first commits again when it decided them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import { buildCommit } from "../src/contract/engine.js";
import { ruleTextParses } from "../src/contract/ruleParseMemo.js";
import { askHealth, notingAppends, storeWith } from "./support/liveTestApp.js";
import { type TestApp, testApp } from "./support/testApps.js";

/** Rules of one request: far under the limits, enough to hold the loop for a long time in one go. */
const RULES = 15;
/** A push's commits and the rule operations of each: more big rules than the 64 parses once remembered. */
const PUSHED_COMMITS = 3;
const PUSHED_RULES = 30;

/**
 * A rule text of almost 64 KiB, its formula about 115 levels deep: a chain of boxes over a
 * balanced disjunction of diamonds whose labels differ from `seed` to `seed`.
 */
function bigRule(seed: string): string {
  const head = `rule r { formula { ${"[+a]".repeat(100)}(`;
  const tail = ") } }";
  const atom = (i: number) => `<+s${seed}x${i}>true`;
  const tree = (lo: number, hi: number): string =>
    hi - lo === 1 ? atom(lo) : `(${tree(lo, (lo + hi) >> 1)} | ${tree((lo + hi) >> 1, hi)})`;
  let n = 3_200;
  while ((head + tree(0, n) + tail).length > 64 * 1024 - 16) n -= 10;
  return head + tree(0, n) + tail;
}

describe("commits of many big rule texts", () => {
  let t: TestApp;
  let url: string;
  /** What finished, in order: "health", "append" and "answer". */
  let order: string[] = [];

  /** Sends `GET /health` now, noting its answer in `order`. */
  function health(): void {
    void askHealth(url, order);
  }

  before(async () => {
    t = await testApp("rest", {
      limits: { bodyBytes: 4 * 1024 * 1024 },
      workBudgetMs: 0,
      // The store notes each append of commits (what follows a request's checks and decision).
      wrapStore: (store) =>
        storeWith(
          store,
          notingAppends(() => order),
        ),
    });
    // `GET /health` is sent as the hub's work on each request begins.
    for (const name of ["createContract", "submitCommit", "push"] as const) {
      const real = (t.hub[name] as (...a: unknown[]) => unknown).bind(t.hub);
      (t.hub as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        health();
        return real(...args);
      };
    }
    url = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  after(async () => {
    await t.close();
  });

  async function post(path: string, payload: unknown) {
    const body = JSON.stringify(payload);
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: path, body }),
    };
    const res = await fetch(url + path, { method: "POST", headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("answers GET /health while a new contract's big rules are checked, and parses each once", async () => {
    const rules = Array.from({ length: RULES }, (_, i) => bigRule(`g${i}`));
    assert.ok(rules.every((r) => r.length > 60 * 1024 && r.length <= 64 * 1024));
    order = [];
    const parsed = ruleTextParses();
    const answer = await post("/contracts", { contract_id: "long-rules-genesis", model: null, rules });
    order.push("answer");
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(ruleTextParses() - parsed, RULES);
    assert.deepEqual(order, ["health", "append", "answer"]);
  });

  // A `.modality` value may be a model or a rule: tried as a model first, then as a rule.
  for (const [what, method, path, seed] of [
    ["big rule operations", "rule", "/rules/r", "c"],
    ["big .modality values that are rules", "post", "/texts/t", "m"],
  ] as const) {
    it(`answers GET /health while a commit's ${what} are checked, and parses each once`, async () => {
      const { id, head } = await t.contract();
      const data = Array.from({ length: RULES }, (_, i) => ({
        method,
        path: `${path}${i}.modality`,
        value: bigRule(`${seed}${i}`),
      }));
      order = [];
      const parsed = ruleTextParses();
      const answer = await post(`/contracts/${id}/commits`, { commit: buildCommit(id, head, data as Operation[]) });
      order.push("answer");
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(ruleTextParses() - parsed, RULES);
      assert.deepEqual(order, ["health", "append", "answer"]);
    });
  }

  it("answers GET /health while a push's big rule operations are checked, and parses each once", async () => {
    const { id, head } = await t.contract();
    const commits: WireCommit[] = [];
    for (let c = 0, parent = head; c < PUSHED_COMMITS; c++, parent = commits.at(-1)!.hash) {
      const data = Array.from({ length: PUSHED_RULES }, (_, i) => ({
        method: "rule",
        path: `/rules/p${c}r${i}.modality`,
        value: bigRule(`p${c}r${i}`),
      }));
      commits.push(buildCommit(id, parent, data as Operation[]));
    }
    order = [];
    const parsed = ruleTextParses();
    const answer = await post(`/contracts/${id}/push`, { commits });
    order.push("answer");
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.pushed, PUSHED_COMMITS);
    assert.equal(ruleTextParses() - parsed, PUSHED_COMMITS * PUSHED_RULES);
    assert.deepEqual(order, ["health", "append", "answer"]);
  });
});
