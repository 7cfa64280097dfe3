/**
 * Measures how long `GET /health` waits while one push of a commit whose attestation holds a
 * big value runs on a real hub process, on a contract whose model guards a transition with
 * `oracle_attests` (so the decision compares that value with the rule's) and, as a control,
 * on one whose model does not. Values: an object of 400,000 members ("wide") and 15 strings
 * of 1 MB ("long"). Prints one JSON line per run and the load average (wall-clock figures).
 * With `forms`, instead: a commit given as fields (`POST /contracts/:id/commits`) and a
 * proposal (`POST /contracts/:id/proposals`, kept open by a signature it lacks), each with an
 * attestation of an object of 80,000 members, under those routes' 1 MiB body limit.
 * Usage: CONTRACT_HUB_SOURCE=1 node --import tsx scripts/measure-attestation-judge-stall.ts [runs] [forms]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { signRequest } from "../src/auth/signRequest.js";
import { signAttestation } from "../src/contract/attestation.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { genesisData } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { HealthProbe } from "../test/reliability/support/hostileLoad.js";
import { Party } from "../test/reliability/support/party.js";
import { Rng } from "../test/reliability/support/seeded.js";
import { startHub } from "../test/support/hubProcess.js";

const runs = Number(process.argv[2] ?? 3);
const forms = process.argv[3] === "forms";

const GUARDED = `model Attested {
  initial open
  open -> paid [+oracle_attests(/oracle.id, "doc", "yes")]
  open -> open [+NOTE -oracle_attests(/oracle.id, "doc", "revoked")]
  paid -> paid []
}`;
const COSIGNED = `model CoSigned {
  initial open
  open -> open [+NOTE +signed_by(/users/cosigner.id)]
}`;
const UNGUARDED = `model Plain {
  initial open
  open -> paid [+PAYOUT]
  open -> open [+NOTE]
  paid -> paid []
}`;

const VALUES: Record<string, () => unknown> = {
  wide: () => Object.fromEntries(Array.from({ length: 400_000 }, (_, i) => [`member${i}`, i])),
  long: () => Array.from({ length: 15 }, (_, i) => `${i}${"x".repeat(1000)}é漢🙂`.repeat(1_000)),
};

const dir = mkdtempSync(join(tmpdir(), "attestation-judge-stall-"));
const hub = await startHub(dir);
const oracle = generateKeyPair();
let n = 0;

async function post(party: Party, path: string, body: string): Promise<number> {
  const headers = {
    "content-type": "application/json",
    ...signRequest(party.accessSeed, { method: "POST", url: path, body }),
  };
  const res = await fetch(hub.url + path, { method: "POST", headers, body });
  await res.text();
  return res.status;
}

/** Runs `request` while GET /health is polled every 2 ms; prints what it came to. */
async function probed(label: Record<string, string>, request: () => Promise<number>): Promise<void> {
  const probe = new HealthProbe(hub.url, 2);
  await new Promise((r) => setTimeout(r, 50));
  const started = performance.now();
  const status = await request();
  const requestMs = Math.round(performance.now() - started);
  await new Promise((r) => setTimeout(r, 50));
  const health = await probe.stop();
  console.log(JSON.stringify({ ...label, status, requestMs, health, load: loadavg()[0] }));
}

/** Short names, so that 80,000 members fit a 1 MiB body. */
const MEDIUM = () => Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [i.toString(36), 0]));

async function measureForms(rng: Rng): Promise<void> {
  const cosigner = generateKeyPair();
  for (const form of ["fields", "proposal"]) {
    const party = new Party(rng);
    await party.register(hub.url);
    const id = `forms-${n++}`;
    const state = { "/users/cosigner.id": cosigner.publicKey.toString("hex") };
    const model = form === "proposal" ? COSIGNED : null;
    const genesis = buildWireCommit(id, null, genesisData({ model, rules: [], owner: party.identity, state }));
    await post(party, `/contracts/${id}/push`, JSON.stringify({ commits: [genesis] }));
    const attestation = signAttestation(
      { contract_id: id, parent: genesis.hash, claim: "doc", value: MEDIUM() },
      oracle.seed,
      oracle.publicKey,
    );
    const body =
      form === "fields"
        ? JSON.stringify({
            contract_id: id,
            method: "post",
            path: "/n.json",
            value: 1,
            parent: genesis.hash,
            attestations: [attestation],
          })
        : JSON.stringify({
            commit: buildWireCommit(id, genesis.hash, [{ method: "action", value: "NOTE" }], [], [attestation]),
          });
    const path = form === "fields" ? `/contracts/${id}/commits` : `/contracts/${id}/proposals`;
    await probed({ kind: "80,000 members", form, bytes: String(body.length) }, () => post(party, path, body));
  }
}

try {
  const rng = new Rng(18);
  for (let r = 0; r < runs && forms; r++) await measureForms(rng);
  for (let r = 0; r < runs && !forms; r++) {
    for (const [kind, make] of Object.entries(VALUES)) {
      for (const [modelName, model] of [
        ["guarded", GUARDED],
        ["control", UNGUARDED],
      ] as const) {
        // A fresh identity each push: one identity's work budget would refuse later ones.
        const party = new Party(rng);
        await party.register(hub.url);
        const id = `stall-${n++}`;
        const state = { "/oracle.id": oracle.publicKey.toString("hex") };
        const genesis = buildWireCommit(id, null, genesisData({ model, rules: [], owner: party.identity, state }));
        await post(party, `/contracts/${id}/push`, JSON.stringify({ commits: [genesis] }));
        const value = make();
        const attestation = signAttestation(
          { contract_id: id, parent: genesis.hash, claim: "doc", value },
          oracle.seed,
          oracle.publicKey,
        );
        const data = [{ method: "action" as const, value: "NOTE" }];
        const commit = buildWireCommit(id, genesis.hash, data, [], [attestation]);
        const body = JSON.stringify({ commits: [commit] });
        const probe = new HealthProbe(hub.url, 2);
        await new Promise((r) => setTimeout(r, 50));
        const started = performance.now();
        const status = await post(party, `/contracts/${id}/push`, body);
        const requestMs = Math.round(performance.now() - started);
        await new Promise((r) => setTimeout(r, 50));
        const health = await probe.stop();
        console.log(JSON.stringify({ kind, model: modelName, status, requestMs, health, load: loadavg()[0] }));
      }
    }
  }
} finally {
  await hub.stop();
  rmSync(dir, { recursive: true, force: true });
}
