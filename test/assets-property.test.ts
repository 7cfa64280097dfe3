/**
 * Property (PROTOCOL.md §6): random sequences of CREATE, SEND and RECV over several contracts,
 * submitted to a hub, keep "balances plus sent-not-received equal the quantity, no balance
 * negative" in the store's tables and by checkAssetInvariants; every outcome (success or
 * asset code) matches a small independent model of the rules. Seeded: the seed is printed,
 * and FC_SEED=<n> replays a failure.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { checkAssetInvariants } from "../src/hub/assets/checkAssetInvariants.js";
import type { Store } from "../src/store/Store.js";
import { contracts, op, rpcCodeOf } from "./asset-fixtures.js";
import { Actor, cleanup, openHub } from "./hub-fixtures.js";

after(cleanup);

const IDS = ["c0", "c1", "c2", "c3"];
type Cmd =
  | { k: "create"; c: number; asset: string; quantity: number; div: number }
  | { k: "send"; c: number; asset: string; to: number; amount: number }
  | { k: "recv"; c: number; pick: number };

const contract = fc.integer({ min: 0, max: IDS.length - 1 });
const assetNames = ["a", "b", ...IDS.flatMap((c) => [`${c}/a`, `${c}/b`])];
const command: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({
    k: fc.constant("create" as const),
    c: contract,
    asset: fc.constantFrom("a", "b"),
    quantity: fc.integer({ min: 1, max: 1000 }),
    div: fc.constantFrom(1, 2, 5),
  }),
  fc.record({
    k: fc.constant("send" as const),
    c: contract,
    asset: fc.constantFrom(...assetNames),
    // IDS.length names a contract that does not exist.
    to: fc.integer({ min: 0, max: IDS.length }),
    amount: fc.integer({ min: 0, max: 600 }),
  }),
  fc.record({ k: fc.constant("recv" as const), c: contract, pick: fc.nat() }),
);

/** The independent model: what each command should answer. */
class Model {
  assets = new Map<string, { quantity: number; div: number }>();
  held = IDS.map(() => new Map<string, number>());
  sends = new Map<string, { to: string; name: string; amount: number; received: boolean }>();

  create(c: number, asset: string): number | "ok" {
    const name = `${IDS[c]}/${asset}`;
    if (this.assets.has(name)) return -32040;
    return "ok";
  }

  /** The asset a SEND names, or null (-32022). */
  resolve(c: number, asset: string): string | null {
    if (asset.includes("/")) return this.assets.has(asset) && this.held[c]!.has(asset) ? asset : null;
    if (this.assets.has(`${IDS[c]}/${asset}`)) return `${IDS[c]}/${asset}`;
    const foreign = [...this.held[c]!].filter(([n]) => n.endsWith(`/${asset}`) && !n.startsWith(`${IDS[c]}/`));
    const positive = foreign.filter(([, amount]) => amount > 0);
    const pick = positive.length > 0 ? positive : foreign;
    return pick.length === 1 ? pick[0]![0] : null;
  }

  send(c: number, asset: string, to: number, amount: number): number | "ok" {
    if (amount <= 0) return -32020;
    if (to >= IDS.length) return -32025;
    const name = this.resolve(c, asset);
    if (name === null) return -32022;
    if (amount % this.assets.get(name)!.div !== 0) return -32023;
    if (this.held[c]!.get(name)! < amount) return -32024;
    return "ok";
  }

  recv(c: number, hash: string | undefined): number | "ok" {
    const s = hash === undefined ? undefined : this.sends.get(hash);
    if (s === undefined) return -32030;
    if (s.to !== IDS[c]) return -32031;
    if (s.received) return -32032;
    return "ok";
  }

  credit(c: number, name: string, amount: number): void {
    this.held[c]!.set(name, (this.held[c]!.get(name) ?? 0) + amount);
  }
}

/** The invariant over the store's tables. */
async function assertStoreSums(store: Store, sendHashes: string[]): Promise<void> {
  const quantity = new Map<string, number>();
  const sum = new Map<string, number>();
  for (const id of IDS) {
    const { assets, balances } = await store.getAssets(id);
    for (const a of assets) quantity.set(`${a.issuer}/${a.assetId}`, a.quantity);
    for (const b of balances) {
      assert.ok(b.amount >= 0, `negative balance in ${id}`);
      sum.set(`${b.issuer}/${b.assetId}`, (sum.get(`${b.issuer}/${b.assetId}`) ?? 0) + b.amount);
    }
  }
  for (const h of sendHashes) {
    const s = (await store.getSend(h))!;
    if (s.receivedBy === null)
      sum.set(`${s.issuer}/${s.assetId}`, (sum.get(`${s.issuer}/${s.assetId}`) ?? 0) + s.amount);
  }
  assert.deepEqual(sum, quantity);
}

describe("asset property", () => {
  it("keeps balances plus sent-not-received equal to the quantity, and matches the model", async () => {
    const seed = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`assets-property fast-check seed: ${seed} (FC_SEED=${seed} to replay)`);
    const alice = new Actor("alice");
    const property = fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), async (cmds) => {
      const hub = await openHub();
      try {
        await contracts(hub, alice, ...IDS);
        const model = new Model();
        const sendHashes: string[] = [];
        for (const cmd of cmds) {
          const id = IDS[cmd.c]!;
          if (cmd.k === "create") {
            const expected = model.create(cmd.c, cmd.asset);
            const value = { asset_id: cmd.asset, quantity: cmd.quantity, divisibility: cmd.div };
            const got = await rpcCodeOf(op(hub, alice, id, "create", value));
            assert.equal(got, expected, JSON.stringify(cmd));
            if (got === "ok") {
              model.assets.set(`${id}/${cmd.asset}`, { quantity: cmd.quantity, div: cmd.div });
              model.credit(cmd.c, `${id}/${cmd.asset}`, cmd.quantity);
            }
          } else if (cmd.k === "send") {
            const expected = model.send(cmd.c, cmd.asset, cmd.to, cmd.amount);
            const value = { asset_id: cmd.asset, to_contract: IDS[cmd.to] ?? "nowhere", amount: cmd.amount };
            let hash = "";
            const got = await rpcCodeOf(op(hub, alice, id, "send", value).then((r) => (hash = r.commit_hash)));
            assert.equal(got, expected, JSON.stringify(cmd));
            if (got === "ok") {
              const name = model.resolve(cmd.c, cmd.asset)!;
              model.credit(cmd.c, name, -cmd.amount);
              model.sends.set(hash, { to: value.to_contract, name, amount: cmd.amount, received: false });
              sendHashes.push(hash);
            }
          } else {
            // Mostly a SEND made earlier; past the end, a hash that names no SEND.
            const hash = sendHashes[cmd.pick % (sendHashes.length + 1)];
            const expected = model.recv(cmd.c, hash);
            const got = await rpcCodeOf(op(hub, alice, id, "recv", { send_commit_id: hash ?? "ab".repeat(32) }));
            assert.equal(got, expected, JSON.stringify(cmd));
            if (got === "ok") {
              const s = model.sends.get(hash!)!;
              s.received = true;
              model.credit(cmd.c, s.name, s.amount);
            }
          }
        }
        await assertStoreSums(hub.store, sendHashes);
        for (const [c, held] of model.held.entries()) {
          const stored = (await hub.store.getAssets(IDS[c]!)).balances.map((b) => [
            `${b.issuer}/${b.assetId}`,
            b.amount,
          ]);
          assert.deepEqual(new Map(stored as [string, number][]), held);
        }
        const report = await checkAssetInvariants(hub.store, IDS);
        assert.deepEqual(report.issues, []);
        assert.equal(report.sends, sendHashes.length);
        // Discovery from the anonymously listed contracts reaches the same set.
        assert.equal((await checkAssetInvariants(hub.store)).ok, true);
      } finally {
        await hub.close();
      }
    });
    await fc.assert(property, { seed, numRuns: 30 });
  });
});
