import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { assetStoreCheck } from "../hub/audit.js";
import { openStore } from "../store/openStore.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import { EXIT_FAILED, EXIT_OK, type Io } from "./Io.js";
import { listContractIds, sqlitePath } from "./verify/contractIds.js";
import { type ContractReport, verifyStore } from "./verify/verifyStore.js";
import { verifyWorkingCopy } from "./verify/verifyWorkingCopy.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

export interface VerifyFlags {
  dataDir?: string;
  databaseUrl?: string;
  json?: boolean;
}

function describe(r: ContractReport): string {
  if (r.ok) return `ok       ${r.contract_id}: ${r.commits} commits, head ${r.head?.slice(0, 12)}`;
  const where = r.damage?.index === null ? "contract row" : `commit ${r.damage?.index}`;
  const hash = r.damage?.hash ? ` (${r.damage.hash})` : "";
  return `DAMAGED  ${r.contract_id}: ${where}${hash}: ${r.damage?.message}`;
}

/**
 * `contract-hub verify`: inside a working copy, replays it and checks every hash and
 * signature locally; with `--data-dir DIR` (or `--database-url`), checks every contract of a
 * hub's store (PROTOCOL.md §12). Exit 1 on any damage, naming the damaged commit.
 */
export function verifyCommand(opts: VerifyFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "verify", async (cli: Cli) => {
    if (opts.dataDir === undefined && opts.databaseUrl === undefined) return verifyHere(cli);
    const dataDir = resolve(cli.cwd, opts.dataDir ?? ".");
    if (!opts.databaseUrl && !existsSync(sqlitePath(dataDir))) {
      throw new UsageError(`no hub store in ${dataDir} (expected ${sqlitePath(dataDir)})`);
    }
    const ids = await listContractIds({ dataDir, databaseUrl: opts.databaseUrl ?? null });
    const store = await openStore({ dataDir, databaseUrl: opts.databaseUrl ?? null });
    let reports: ContractReport[];
    try {
      reports = await verifyStore(store, ids, {
        checks: [assetStoreCheck(ids)],
        onReport: (r) => (cli.json ? undefined : cli.io.out(describe(r))),
      });
    } finally {
      await store.close();
    }
    const damaged = reports.filter((r) => !r.ok).length;
    report(cli, { ok: damaged === 0, checked: reports.length, damaged, contracts: reports }, () =>
      damaged === 0 ? `${reports.length} contract(s) verified` : `${damaged} of ${reports.length} contract(s) damaged`,
    );
    return damaged === 0 ? EXIT_OK : EXIT_FAILED;
  });
}

async function verifyHere(cli: Cli): Promise<number> {
  const r = await verifyWorkingCopy(WorkingCopy.find(cli.cwd));
  report(cli, r, () => describe(r));
  return r.ok ? EXIT_OK : EXIT_FAILED;
}
