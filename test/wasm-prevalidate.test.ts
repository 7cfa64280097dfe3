/**
 * Big `.wasm` values are validated on the worker pool before the commit's shape check
 * (docs/security.md, "Hostile load"): `WebAssembly.validate` of an 11 MB module (a push
 * carries up to 16 MiB) held the event loop for most of a second, and no other caller was
 * served meanwhile. The pool here is the hub's real one, gated: a check that reaches it
 * waits until the test opens the gate. While it waits, `GET /health` on another connection
 * is answered and the commit is not; a check done inline (on the event loop) never reaches
 * the gate and the commit is answered first. Real HTTP on loopback, real SQLite.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import type { HubClient } from "../src/client/HubClient.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { buildCommit } from "../src/contract/engine.js";
import { WASM_MEMO_MIN_CHARS } from "../src/contract/wasmValueMemo.js";
import { startServers } from "../src/http/startServers.js";
import { Hub } from "../src/hub/Hub.js";
import { HeavyWork } from "../src/hub/heavy/HeavyWork.js";
import { type TaskOutcome, WorkerPool } from "../src/hub/heavy/WorkerPool.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { manyFunctions } from "./support/manyFunctions.js";
import { registeredClient } from "./support/registeredClient.js";
import { base64 } from "./support/wasmModules.js";

/** The hub's worker pool, whose `.wasm` checks wait at a gate the test opens. */
class GatedPool extends WorkerPool {
  /** The values whose checks reached the pool, in order. */
  readonly reached: string[] = [];
  #arrived: Array<() => void> = [];
  #open = false;
  #waiting: Array<() => void> = [];

  override async run<T>(task: string, payload: unknown): Promise<TaskOutcome<T>> {
    if (task === "checkWasmValue") {
      this.reached.push(payload as string);
      for (const arrived of this.#arrived.splice(0)) arrived();
      if (!this.#open) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    return super.run<T>(task, payload);
  }

  /** Resolves when a `.wasm` check reaches the pool. */
  arrival(): Promise<void> {
    return new Promise((resolve) => this.#arrived.push(resolve));
  }

  /** Lets every waiting and later check through. */
  open(): void {
    this.#open = true;
    for (const go of this.#waiting.splice(0)) go();
  }
}

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function liveHub() {
  const dir = mkdtempSync(join(tmpdir(), "wasm-prevalidate-"));
  const store = await SqliteStore.open({ dataDir: dir });
  const pool = new GatedPool(undefined, 1);
  const hub = new Hub({ store, work: new HeavyWork({ pool }) });
  const servers = await startServers(
    {
      hub,
      authenticator: new Authenticator({ store }),
      registry: new AccessRegistry({ store }),
      rateLimit: 0,
      logger: false,
    },
    { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: false },
  );
  closers.push(async () => {
    pool.open();
    await servers.close();
    await hub.close();
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const client = await registeredClient(servers.restUrl);
  const { contract_id: id } = await client.createContract({ model: null, rules: [] });
  return { servers, client, id, pool };
}

/** A module of about 390 KB (50,000 functions): its base64 fits a 1 MiB commit body and is over the inline limit. */
const BIG = manyFunctions(50_000);
/** The same module with one byte more: WebAssembly refuses it only at its very end. */
const BIG_INVALID = Uint8Array.from([...BIG, 0xff]);

/** The value stored at `path` by the contract's commits (the last one writing it), read back by a pull. */
async function storedValue(client: HubClient, id: string, path: string): Promise<unknown> {
  const ops = (await client.pull(id)).commits.flatMap((c) => c.data);
  return ops.filter((op) => op.path === path).at(-1)?.value;
}

async function settled<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: ContractError }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error: error as ContractError };
  }
}

describe("big .wasm values are validated on the worker pool", () => {
  it("while a commit's big module is validated, GET /health on another connection is answered first", async () => {
    const { servers, client, id, pool } = await liveHub();
    const value = base64(BIG);
    assert.ok(value.length >= WASM_MEMO_MIN_CHARS);
    let answered = false;
    const commit = settled(client.submitCommit(id, { method: "post", path: "/code/big.wasm", value })).finally(() => {
      answered = true;
    });
    // An inline check never reaches the gate: the commit is then answered first.
    const first = await Promise.race([pool.arrival().then(() => "pool"), commit.then(() => "commit")]);
    assert.equal(first, "pool", "the module was validated on the event loop, not on the pool");
    const health = await fetch(`${servers.restUrl}/health`);
    assert.equal(health.status, 200);
    assert.equal(answered, false, "the commit was answered before its module was validated");
    pool.open();
    const result = await commit;
    assert.ok(result.ok, result.ok ? "" : result.error.message);
    assert.equal(result.value.index, 1);
    assert.equal(await storedValue(client, id, "/code/big.wasm"), value);
  });

  it("an invalid big module in a push is refused wasm_invalid, checked on the pool, and nothing is stored", async () => {
    const { client, id, pool } = await liveHub();
    pool.open();
    const head = (await client.getState(id)).head;
    const value = base64(BIG_INVALID);
    const ok = buildCommit(id, head, [{ method: "post", path: "/ok.text", value: "fine" }]);
    const commits = [
      ok,
      buildCommit(id, ok.hash, [
        { method: "post", path: "/note.text", value: "with a module" },
        { method: "post", path: "/code/bad.wasm", value },
      ]),
    ];
    const result = await settled(client.push(id, commits));
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, "VALIDATION_FAILED");
    assert.equal(result.error.details?.reason, "wasm_invalid");
    assert.equal(result.error.details?.path, "/code/bad.wasm");
    assert.equal(result.error.details?.extension, ".wasm");
    assert.equal(result.error.details?.operation, 1);
    assert.deepEqual(pool.reached, [value]);
    const state = await client.getState(id);
    assert.equal(state.head, head);
    assert.equal(state.commit_count, 1);
    assert.equal(await storedValue(client, id, "/ok.text"), undefined);
  });

  it("a valid big module at genesis is accepted, an invalid one in a proposal refused wasm_invalid: both checked on the pool", async () => {
    const { client, id, pool } = await liveHub();
    pool.open();
    const genesisValue = base64(manyFunctions(40_000));
    const created = await client.createContract({ model: null, rules: [], state: { "/code/g.wasm": genesisValue } });
    assert.equal(await storedValue(client, created.contract_id, "/code/g.wasm"), genesisValue);
    assert.deepEqual(pool.reached, [genesisValue]);

    const head = (await client.getState(id)).head;
    const bad = base64(Uint8Array.from([...manyFunctions(45_000), 0xff]));
    const refused = await settled(
      client.propose(id, buildCommit(id, head, [{ method: "post", path: "/code/p.wasm", value: bad }])),
    );
    assert.equal(refused.ok, false);
    if (refused.ok) return;
    assert.equal(refused.error.code, "VALIDATION_FAILED");
    assert.equal(refused.error.details?.reason, "wasm_invalid");
    assert.deepEqual(pool.reached, [genesisValue, bad]);
    assert.equal((await client.listProposals(id)).proposals.length, 0);
  });
});
