/**
 * The hub's fsck (docs/storage.md): every contract in the store is replayed without trusting
 * it (replayLog `trusted: false`): each hash recomputed, each parent link, signature, signer
 * list and transition checked, and the contract row's head and length compared with the log.
 * The row's owner must be the genesis commit's, and no commit may be stored after its length.
 * The contract's stored state snapshot (docs/storage.md) is compared with the state the
 * replay reaches at its length: a snapshot that differs, or whose digest does not match its
 * text, is damage too (the hub would otherwise load from it).
 * Damage is reported per contract, naming the first damaged commit.
 */
import { isContractError } from "../../contract/ContractError.js";
import type { ContractState } from "../../contract/ContractState.js";
import type { WasmRunner } from "../../contract/EngineContext.js";
import { replayLog } from "../../contract/engine.js";
import { IDENTITY_PREFIX } from "../../contract/hex.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { SNAPSHOT_FORMAT, snapshotDigest, snapshotText } from "../../contract/stateSnapshot.js";
import { localWasmRunner } from "../../predicates/wasmRunner.js";
import type { StateSnapshot, Store } from "../../store/Store.js";
import { throwStorageFault } from "./throwStorageFault.js";

/** The first damage found in a contract. */
export interface Damage {
  /** Log index of the damaged commit, or null when the damage is in the contract row. */
  index: number | null;
  hash?: string;
  message: string;
}

/** What verify says about one contract. */
export interface ContractReport {
  contract_id: string;
  ok: boolean;
  commits: number;
  head: string | null;
  damage?: Damage;
}

/**
 * A further invariant over a contract that replayed cleanly. The seam for the asset issue:
 * balances plus sent-not-received amounts equal each asset's quantity (docs/assets.md) will
 * be a StoreCheck; none is registered yet.
 */
export interface StoreCheck {
  name: string;
  check(store: Store, contractId: string, state: ContractState): Promise<Damage | null>;
}

/** Verifies the contracts `ids` of `store`; `onReport` sees each as it is done. */
export async function verifyStore(
  store: Store,
  ids: readonly string[],
  options: {
    checks?: readonly StoreCheck[];
    onReport?: (r: ContractReport) => void;
    /** Runs custom predicates (default: the command line's runner, with the hub's default limits). */
    wasm?: WasmRunner;
  } = {},
): Promise<ContractReport[]> {
  const reports: ContractReport[] = [];
  for (const id of ids) {
    const report = await verifyContract(store, id, options.checks ?? [], options.wasm ?? localWasmRunner());
    options.onReport?.(report);
    reports.push(report);
  }
  return reports;
}

async function verifyContract(
  store: Store,
  id: string,
  checks: readonly StoreCheck[],
  wasm: WasmRunner,
): Promise<ContractReport> {
  const record = await store.getContract(id);
  if (record === null) {
    return {
      contract_id: id,
      ok: false,
      commits: 0,
      head: null,
      damage: { index: null, message: "contract row missing" },
    };
  }
  const base = { contract_id: id, commits: record.length, head: record.head };
  const read = await readAll(store, id, record.length);
  if ("damage" in read) return { ...base, ok: false, damage: read.damage };
  const { commits } = read;
  let state: ContractState;
  const snapshot = await store.readSnapshot(id);
  let snapshotState: string | undefined;
  try {
    state = await replayLog(id, commits, {
      trusted: false,
      wasm,
      onState: (s) => {
        if (s.length === snapshot?.length) snapshotState = snapshotText(s);
      },
    });
  } catch (err) {
    if (!isContractError(err)) throw err;
    const index = typeof err.details?.index === "number" ? err.details.index : null;
    const hash = typeof err.details?.hash === "string" ? err.details.hash : undefined;
    return { ...base, ok: false, damage: { index, ...(hash ? { hash } : {}), message: err.message } };
  }
  if (commits.length !== record.length || state.head !== record.head) {
    return {
      ...base,
      ok: false,
      damage: {
        index: null,
        message: `contract row says ${record.length} commits ending at ${record.head}, the log has ${commits.length} ending at ${state.head}`,
      },
    };
  }
  // The hub decides access by the row's owner: it must be the owner the genesis commit signed up.
  if (state.owner !== IDENTITY_PREFIX + record.owner) {
    return {
      ...base,
      ok: false,
      damage: { index: null, message: `contract row names owner ${record.owner}, the genesis commit ${state.owner}` },
    };
  }
  // A commit after the row's length: the row was moved back while the commits stayed (the hub
  // serves the shorter log and cannot append there).
  const stray = await store.getCommitAt(id, record.length);
  if (stray !== null) {
    return {
      ...base,
      ok: false,
      damage: {
        index: record.length,
        hash: stray.hash,
        message: `a commit is stored after the ${record.length} commits the contract row says`,
      },
    };
  }
  if (snapshot !== null) {
    const damage = snapshotDamage(snapshot, snapshotState);
    if (damage !== null) return { ...base, ok: false, damage };
  }
  for (const c of checks) {
    const damage = await c.check(store, id, state);
    if (damage !== null) return { ...base, ok: false, damage: { ...damage, message: `${c.name}: ${damage.message}` } };
  }
  return { ...base, ok: true };
}

/** What is wrong with a stored snapshot, given the text of the state the log reaches at its length (if it reaches it). */
function snapshotDamage(snapshot: StateSnapshot, fromLog: string | undefined): Damage | null {
  // Another format is not damage: no hub of this version loads it (it replays and rewrites it).
  if (snapshot.format !== SNAPSHOT_FORMAT) return null;
  const at = `state snapshot at ${snapshot.length} commits`;
  if (snapshotDigest(snapshot.state) !== snapshot.digest)
    return { index: null, message: `${at}: its digest does not match its text` };
  if (fromLog === undefined) return { index: null, message: `${at}: the log has fewer commits` };
  if (fromLog !== snapshot.state) return { index: null, message: `${at}: differs from the state the log gives there` };
  return null;
}

/**
 * The contract's stored commits. A row that cannot be decoded (e.g. its JSON was damaged)
 * makes the paged read throw somewhere in its page; it is then found by reading one by one.
 */
async function readAll(
  store: Store,
  id: string,
  length: number,
): Promise<{ commits: StoredCommit[] } | { damage: Damage }> {
  const commits: StoredCommit[] = [];
  try {
    for await (const c of store.readCommits(id, 0, length)) commits.push(c);
    return { commits };
  } catch (err) {
    // A database that went away (its connection ended) damaged nothing: verify stops on it.
    throwStorageFault(err);
    for (let i = commits.length; i < length; i++) {
      try {
        if ((await store.getCommitAt(id, i)) === null) return { damage: { index: i, message: "commit row missing" } };
      } catch (rowErr) {
        throwStorageFault(rowErr);
        return { damage: { index: i, message: `commit row cannot be read: ${(rowErr as Error).message}` } };
      }
    }
    return { damage: { index: commits.length, message: `commits cannot be read: ${(err as Error).message}` } };
  }
}
