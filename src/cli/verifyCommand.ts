import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { PENDING_GRACE_MS, type VerifiedCheckpoint } from "../client/checkHubLog.js";
import { assetStoreCheck } from "../hub/audit.js";
import { openStore } from "../store/openStore.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import { count } from "./count.js";
import { EXIT_FAILED, EXIT_OK, type Io } from "./Io.js";
import { listContractIds, sqlitePath } from "./verify/contractIds.js";
import { throwStorageFault } from "./verify/throwStorageFault.js";
import { type ContractReport, verifyStore } from "./verify/verifyStore.js";
import { type TreeReport, verifyTree } from "./verify/verifyTree.js";
import { verifyWorkingCopy } from "./verify/verifyWorkingCopy.js";
import { clientFor, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { checkWorkingCopyLog } from "./workingCopy/hubLog.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

export interface VerifyFlags {
  dataDir?: string;
  databaseUrl?: string;
  remote?: boolean;
  hub?: string;
  key?: string;
  json?: boolean;
}

function describe(r: ContractReport): string {
  if (r.ok) return `ok       ${r.contract_id}: ${count(r.commits, "commit")}, head ${r.head?.slice(0, 12)}`;
  const where = r.damage?.index === null ? "contract row" : `commit ${r.damage?.index}`;
  const hash = r.damage?.hash ? ` (${r.damage.hash})` : "";
  return `DAMAGED  ${r.contract_id}: ${where}${hash}: ${r.damage?.message}`;
}

/**
 * `contract-hub verify`: inside a working copy, replays it and checks every hash and
 * signature locally; with `--data-dir DIR` (or `--database-url`), checks every contract of a
 * hub's store (docs/storage.md). Exit 1 on any damage, naming the damaged commit.
 */
export function verifyCommand(opts: VerifyFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "verify", async (cli: Cli) => {
    if (opts.dataDir === undefined && opts.databaseUrl === undefined) return verifyHere(cli, opts);
    // The store check reads the store and asks no hub: a --remote taken silently would
    // answer "ok" for a check that never ran.
    if (opts.remote === true || opts.hub !== undefined) {
      throw new UsageError(
        `${opts.remote === true ? "--remote" : "--hub"} checks a working copy against its hub; it does not go with --data-dir or --database-url`,
      );
    }
    const dataDir = resolve(cli.cwd, opts.dataDir ?? ".");
    if (!opts.databaseUrl && !existsSync(sqlitePath(dataDir))) {
      throw new UsageError(`no hub store in ${dataDir} (expected ${sqlitePath(dataDir)})`);
    }
    try {
      return await verifyStoreAt(cli, dataDir, opts.databaseUrl ?? null);
    } catch (err) {
      // PostgreSQL ended the connection (or cannot be reached): the storage error, exit 1.
      throwStorageFault(err);
      throw err;
    }
  });
}

/** The hub's fsck over the store at `dataDir` or `databaseUrl`. */
async function verifyStoreAt(cli: Cli, dataDir: string, databaseUrl: string | null): Promise<number> {
  {
    const ids = await listContractIds({ dataDir, databaseUrl });
    // Reports a commit without a leaf instead of giving it one: verify changes nothing it checks.
    const store = await openStore({ dataDir, databaseUrl, repairLeaves: false });
    let reports: ContractReport[];
    let tree: TreeReport;
    try {
      reports = await verifyStore(store, ids, {
        checks: [assetStoreCheck(ids)],
        onReport: (r) => (cli.json ? undefined : cli.io.out(describe(r))),
      });
      tree = await verifyTree(store, ids);
    } finally {
      await store.close();
    }
    if (!cli.json) {
      cli.io.out(
        tree.ok
          ? `ok       log tree: ${tree.size} leaves`
          : `DAMAGED  log tree: ${tree.damage!.leaf_index === null ? "" : `leaf ${tree.damage!.leaf_index}: `}${tree.damage!.message}`,
      );
    }
    const damaged = reports.filter((r) => !r.ok).length;
    const ok = damaged === 0 && tree.ok;
    report(cli, { ok, checked: reports.length, damaged, contracts: reports, tree }, () =>
      damaged > 0
        ? `${damaged} of ${reports.length} contract(s) damaged`
        : tree.ok
          ? `${reports.length} contract(s) verified`
          : `${reports.length} contract(s) verified; the log tree is damaged`,
    );
    return ok ? EXIT_OK : EXIT_FAILED;
  }
}

async function verifyHere(cli: Cli, opts: VerifyFlags): Promise<number> {
  const wc = WorkingCopy.find(cli.cwd);
  const r = await verifyWorkingCopy(wc);
  if (!r.ok || !opts.remote) {
    report(cli, r, () => describe(r));
    return r.ok ? EXIT_OK : EXIT_FAILED;
  }
  // A failed log check throws a CORRUPTED error naming the hub, both sizes and the check: exit 1.
  const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
  const checkpoint = await checkWorkingCopyLog(wc, client);
  const pending = pendingOf(checkpoint);
  report(cli, { ...r, log_size: checkpoint.size, ...(pending ? { head_pending: pending } : {}) }, () => [
    describe(r),
    pending
      ? `pending  hub log: ${checkpoint.size} commits, consistent with the last check; commit ${pending.hash} ` +
        `(leaf ${pending.leaf_index}) is not in a checkpoint yet: pending since ${pending.since}, ` +
        `it must be proven by ${pending.prove_by}`
      : `ok       hub log: ${checkpoint.size} commits, consistent with the last check, head included`,
  ]);
  return EXIT_OK;
}

/**
 * A head the hub's checkpoint does not cover yet (a hub waiting for witness cosignatures),
 * shown, never passed over: within the grace the check succeeds, after it the check fails.
 */
function pendingOf(c: VerifiedCheckpoint) {
  if (c.head_pending === undefined) return null;
  const since = c.pending_since ?? Date.now();
  return {
    hash: c.head_pending,
    leaf_index: c.head_pending_leaf ?? null,
    since: new Date(since).toISOString(),
    prove_by: new Date(since + PENDING_GRACE_MS).toISOString(),
  };
}
