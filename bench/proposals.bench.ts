/**
 * Proposals over real HTTP on loopback (a hub in this process, SQLite in a temp dir):
 * - round trip: propose a two-party CANCEL signed by one party, then the other party's
 *   signature completes it (two requests, the second appends), against submitting the same
 *   commit with both signatures at once, measured in the same run;
 * - signatures/s: signatures added to open proposals that stay open (an all-of-16 SWEEP),
 *   from 8 concurrent clients, against raw ed25519 verifications/s on this machine.
 *
 * Run: npm run bench -- proposals
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { HubClient } from "../src/client/HubClient.js";
import { signCommit, verifyCommitSignature } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair, type RawKeyPair } from "../src/contract/keys.js";
import { startServers } from "../src/http/startServers.js";
import { Hub } from "../src/hub/Hub.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { opsPerSecond, type Reporter } from "./Reporter.js";

const BENCH = "proposals";
const ROUNDS = 200;
const SIGNERS = 16;
const MODEL = `model Deal {
  initial open
  open -> open [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  open -> open [+SWEEP +all_signed(/signers)]
}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export default async function proposals(r: Reporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-proposals-"));
  const store = await SqliteStore.open({ dataDir: dir });
  const hub = new Hub({ store });
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
  const base = new HubClient({ url: servers.restUrl, retries: 0 });
  const party = async (): Promise<{ pair: RawKeyPair; client: HubClient; key: string }> => {
    const pair = generateKeyPair();
    await base.register(pair.seed, pair.seed);
    return { pair, client: base.withKey(pair.seed), key: pair.publicKey.toString("hex") };
  };
  try {
    const buyer = await party();
    const seller = await party();
    const signers = await Promise.all(Array.from({ length: SIGNERS }, party));
    const state: Record<string, string> = { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key };
    signers.forEach((s, i) => {
      state[`/signers/s${i}.id`] = s.key;
    });
    const { contract_id: id } = await buyer.client.createContract({ model: MODEL, rules: [], state });
    let head = (await base.getState(id)).head;

    // Round trip: propose (buyer) + sign (seller, completes), one after another.
    const viaProposal: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const c = buildCommit(id, head, [{ method: "action", value: "CANCEL" }]);
      c.head.signatures["/users/buyer.id"] = signCommit(c.hash, buyer.pair.seed);
      let t0 = performance.now();
      await buyer.client.propose(id, c);
      const done = await seller.client.signProposal(id, c.hash, {
        "/users/seller.id": signCommit(c.hash, seller.pair.seed),
      });
      viaProposal.push(performance.now() - t0);
      head = done.commit!.commit_hash;

      const d = buildCommit(id, head, [{ method: "action", value: "CANCEL" }]);
      d.head.signatures = {
        "/users/buyer.id": signCommit(d.hash, buyer.pair.seed),
        "/users/seller.id": signCommit(d.hash, seller.pair.seed),
      };
      t0 = performance.now();
      const submitted = await buyer.client.submitCommit(id, { contract_id: id, commit: d });
      direct.push(performance.now() - t0);
      head = submitted.commit_hash;
    }
    const p50 = median(viaProposal);
    const d50 = median(direct);
    r.add({
      bench: BENCH,
      case: "round trip: propose + completing signature (p50)",
      value: p50,
      unit: "ms",
      note: `${ROUNDS} rounds, sequential`,
    });
    r.add({ bench: BENCH, case: "same commit submitted with both signatures (p50)", value: d50, unit: "ms" });
    r.add({ bench: BENCH, case: "proposal round trip / direct submit", value: p50 / d50, unit: "ratio" });

    // Signatures/s: 8 clients, each adding signatures one by one to its own open SWEEP proposal
    // (all 16 needed; 15 are added, so none completes and every request is a pure addition).
    const CLIENTS = 8;
    const hashes: string[] = [];
    for (let k = 0; k < CLIENTS; k++) {
      const c = buildCommit(id, head, [
        { method: "post", path: `/notes/sweep${k}.text`, value: String(k) },
        { method: "action", value: "SWEEP" },
      ]);
      await buyer.client.propose(id, c);
      hashes.push(c.hash);
    }
    const t0 = performance.now();
    await Promise.all(
      hashes.map(async (hash) => {
        for (let i = 0; i < SIGNERS - 1; i++) {
          const s = signers[i]!;
          await s.client.signProposal(id, hash, { [`/signers/s${i}.id`]: signCommit(hash, s.pair.seed) });
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const perSecond = (CLIENTS * (SIGNERS - 1)) / elapsed;
    const sig = signCommit(hashes[0]!, signers[0]!.pair.seed);
    const verifies = opsPerSecond(() => verifyCommitSignature(hashes[0]!, signers[0]!.key, sig));
    r.add({
      bench: BENCH,
      case: "signatures added over REST, 8 clients",
      value: perSecond,
      unit: "signatures/s",
      note: `${CLIENTS * (SIGNERS - 1)} signatures, each verified, stored and the proposal re-decided`,
    });
    r.add({ bench: BENCH, case: "raw ed25519 verify, one core", value: verifies, unit: "verifications/s" });
    r.add({
      bench: BENCH,
      case: "signature additions / raw verifications",
      value: perSecond / verifies,
      unit: "ratio",
    });
  } finally {
    await servers.close();
    await hub.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
