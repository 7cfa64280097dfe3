/**
 * A working copy (docs/cli.md): a folder with `.contract/` holding
 *   config.json      {hub, contract_id, key?}: what init/clone remembered
 *   origin.json      {head, length}: how much of the local log the hub is known to hold
 *   commits/NNNNNNNNNN.json   one stored commit per file, index order (StoredCommit JSON; a
 *                             commit taken from the hub keeps its `leafIndex`, older files lack it)
 * Commits before `origin.length` came from (or went to) the hub; later ones are local,
 * unpushed. One file per commit keeps a damaged commit attributable to its index.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ContractError } from "../../contract/ContractError.js";
import { computeCommitHash } from "../../contract/commitHash.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { UsageError } from "../cliContext.js";
import { writeFileAtomic } from "../writeFileAtomic.js";

export const WORKING_DIR = ".contract";

/** `.contract/config.json`. */
export interface WorkingCopyConfig {
  hub: string;
  contract_id: string;
  /** Key name remembered from init/clone (docs/cli.md key choice). */
  key?: string;
}

/** `.contract/origin.json`: the hub's head as last seen, and the number of local commits it holds. */
export interface OriginRef {
  head: string;
  length: number;
}

const FILE = /^(\d{10})\.json$/;

/** One working copy on disk. */
export class WorkingCopy {
  readonly dir: string;
  config: WorkingCopyConfig;

  private constructor(
    readonly root: string,
    config: WorkingCopyConfig,
    dir = join(root, WORKING_DIR),
  ) {
    this.dir = dir;
    this.config = config;
  }

  /** The working copy holding `cwd` (it or a parent folder has `.contract/`); a usage error otherwise. */
  static find(cwd: string): WorkingCopy {
    const root = WorkingCopy.rootOf(cwd);
    if (root === null) {
      throw new UsageError(`not inside a working copy (no ${WORKING_DIR}/ here or above ${cwd}); use init or clone`);
    }
    return WorkingCopy.open(root);
  }

  /** The working copy holding `cwd`, or null. */
  static tryFind(cwd: string): WorkingCopy | null {
    const root = WorkingCopy.rootOf(cwd);
    return root === null ? null : WorkingCopy.open(root);
  }

  /** The folder at or above `cwd` that has `.contract/config.json`, or null. */
  static rootOf(cwd: string): string | null {
    let dir = resolve(cwd);
    for (;;) {
      if (existsSync(join(dir, WORKING_DIR, "config.json"))) return dir;
      const up = dirname(dir);
      if (up === dir) return null;
      dir = up;
    }
  }

  /** Opens the working copy rooted at `root`. */
  static open(root: string): WorkingCopy {
    const file = join(root, WORKING_DIR, "config.json");
    let config: WorkingCopyConfig;
    try {
      config = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new ContractError("CORRUPTED", `Cannot read ${file}: ${(err as Error).message}`, { reason: "config" });
    }
    if (typeof config?.hub !== "string" || typeof config.contract_id !== "string") {
      throw new ContractError("CORRUPTED", `${file} lacks hub or contract_id`, { reason: "config" });
    }
    return new WorkingCopy(root, config);
  }

  /**
   * Creates a working copy in `root` with its first commits, all known to the hub. Refuses a
   * folder that already is one, so init and clone never overwrite local work.
   */
  static create(root: string, config: WorkingCopyConfig, commits: StoredCommit[]): WorkingCopy {
    WorkingCopy.refuseExisting(root);
    mkdirSync(root, { recursive: true });
    removeStaleBuilds(root);
    // Built in a folder of its own, then renamed into place: a clone of thousands of commits
    // killed part-way (Ctrl-C) would otherwise leave a .contract/ that is no working copy
    // (no config.json) and that init and clone refuse to replace.
    const building = join(root, `${WORKING_DIR}.${process.pid}.tmp`);
    rmSync(building, { recursive: true, force: true });
    try {
      mkdirSync(join(building, "commits"), { recursive: true });
      const draft = new WorkingCopy(root, config, building);
      draft.writeCommits(0, commits);
      draft.setOrigin({ head: commits[commits.length - 1]!.hash, length: commits.length });
      draft.saveConfig();
      renameSync(building, join(root, WORKING_DIR));
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      throw err;
    }
    return new WorkingCopy(root, config);
  }

  /**
   * Refuses `root` as the target of init or clone when it already is a working copy: the
   * command line is sound, but acting on it would overwrite local work, so it is a refusal
   * (CONFLICT, exit 1) as a taken key name is for keygen. Init and clone ask before they talk
   * to the hub, so nothing is created on the hub for a folder that cannot take it.
   */
  static refuseExisting(root: string): void {
    const dir = join(root, WORKING_DIR);
    if (existsSync(dir) && !existsSync(join(dir, "config.json"))) {
      // Not a working copy (every command looks for config.json), so reset cannot repair it;
      // what is in it is no one's unpushed work that a command could have made.
      throw new ContractError(
        "CONFLICT",
        `${root} holds an unfinished ${WORKING_DIR}/ without config.json (an init or clone that was interrupted?); remove ${dir} and run the command again`,
        { reason: "working_copy_incomplete", path: dir },
      );
    }
    if (existsSync(dir)) {
      throw new ContractError(
        "CONFLICT",
        `${root} already holds a working copy (${WORKING_DIR}/ exists); if it is damaged, run contract-hub reset --hard origin there`,
        { reason: "working_copy_exists" },
      );
    }
    if (existsSync(root) && !statSync(root).isDirectory()) throw new UsageError(`${root} is not a folder`);
  }

  /**
   * Takes `.contract/lock` for the rest of the command (released by runCommand through
   * `cleanups`). Every command that changes the log holds it from the moment it reads the
   * log: two commits run at once would otherwise both build on the same head, both say
   * "Committed", and the later write would replace the earlier commit's file, and a push or
   * pull would truncate a commit made while it talked to the hub. A command that finds the
   * lock taken waits for it (up to LOCK_WAIT_MS); a lock whose process is gone is taken over.
   */
  async lock(owner: { cleanups: (() => void)[] }): Promise<void> {
    const file = join(this.dir, "lock");
    const held = LOCKS_HELD.get(owner) ?? new Set<string>();
    if (held.has(file)) return;
    const until = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
        held.add(file);
        LOCKS_HELD.set(owner, held);
        owner.cleanups.push(() => {
          if (!held.delete(file)) return;
          rmSync(file, { force: true });
        });
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const holder = lockHolder(file);
      if (holder !== null && !processRuns(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() >= until) {
        throw new ContractError(
          "CONFLICT",
          `Another contract-hub command${holder === null ? "" : ` (pid ${holder})`} is changing this working copy; run this one again when it has finished (if none is running, remove ${file})`,
          { reason: "working_copy_locked", ...(holder === null ? {} : { pid: holder }), path: file },
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Writes config.json. */
  saveConfig(): void {
    writeAtomic(join(this.dir, "config.json"), this.config);
  }

  /** The hub's part of the local log. */
  origin(): OriginRef {
    const file = join(this.dir, "origin.json");
    try {
      const o = JSON.parse(readFileSync(file, "utf8")) as OriginRef;
      if (typeof o.head === "string" && Number.isSafeInteger(o.length) && o.length >= 1) return o;
    } catch {
      // Reported below.
    }
    throw withRepair(new ContractError("CORRUPTED", `Cannot read ${file}`, { reason: "origin" }));
  }

  /** Records how much of the local log the hub holds. */
  setOrigin(origin: OriginRef): void {
    writeAtomic(join(this.dir, "origin.json"), origin);
  }

  /** File names of the stored commits, in index order; a gap or stray name is damage at that index. */
  commitFiles(): string[] {
    const dir = join(this.dir, "commits");
    const names = existsSync(dir) ? readdirSync(dir).filter((f) => !f.endsWith(".tmp")) : [];
    names.sort();
    names.forEach((name, i) => {
      const m = FILE.exec(name);
      if (m === null || Number(m[1]) !== i) {
        throw damaged(i, `expected commit file ${fileName(i)}, found ${name}`);
      }
    });
    return names.map((n) => join(dir, n));
  }

  /** How many commit files there are (for reports on a damaged log). */
  commitFilesCount(): number {
    const dir = join(this.dir, "commits");
    return existsSync(dir) ? readdirSync(dir).filter((f) => FILE.test(f)).length : 0;
  }

  /**
   * Every stored commit in index order, checked cheaply on the way in: a file that does not
   * parse, whose index differs from its position, whose content no longer hashes to its hash
   * or whose parent is not the previous commit is CORRUPTED naming that index. Every command
   * reads the log through here, so none shows or pushes an edited file as if it were the
   * commit it claims to be; signatures and transitions are left to the replay (status,
   * commit, verify), which costs far more than a hash.
   */
  readCommits(): StoredCommit[] {
    const id = this.config.contract_id;
    let parent: string | null = null;
    return this.commitFiles().map((file, i) => {
      let c: StoredCommit;
      try {
        c = JSON.parse(readFileSync(file, "utf8"));
      } catch (err) {
        throw damaged(i, `${file} is not valid JSON (${(err as Error).message})`);
      }
      const hash = typeof c?.hash === "string" ? c.hash : undefined;
      if (c === null || typeof c !== "object" || c.index !== i || !Array.isArray(c.signers) || !Array.isArray(c.data)) {
        throw damaged(i, `${file} is not a stored commit at index ${i}`, hash);
      }
      if (c.parent !== parent) throw damaged(i, `its parent is not commit ${i - 1}'s hash`, hash);
      if (recomputedHash(id, c) !== c.hash) throw damaged(i, "its content does not match its hash (edited?)", hash);
      parent = c.hash;
      return c;
    });
  }

  /**
   * The leaf index the hub gave the commit at `index`, kept since it was pulled or pushed, if
   * that file holds the commit `hash`. Undefined for a local commit, a file written before
   * leaf indexes were kept, or a file that is not that commit: reading the whole log to find
   * out costs a hash per commit, and readCommits reports the damage to the commands that read it.
   */
  leafIndexOf(index: number, hash: string): number | undefined {
    try {
      const c = JSON.parse(readFileSync(join(this.dir, "commits", fileName(index)), "utf8")) as Partial<StoredCommit>;
      const leaf = c?.leafIndex;
      return c?.hash === hash && typeof leaf === "number" && Number.isSafeInteger(leaf) && leaf >= 0 ? leaf : undefined;
    } catch {
      return undefined;
    }
  }

  /** Writes commits at positions `from`, `from + 1`, … and removes any later file. */
  writeCommits(from: number, commits: readonly StoredCommit[]): void {
    const dir = join(this.dir, "commits");
    mkdirSync(dir, { recursive: true });
    commits.forEach((c, i) => {
      if (c.index !== from + i) throw new Error(`writeCommits: commit ${c.hash} has index ${c.index}, not ${from + i}`);
      writeAtomic(join(dir, fileName(c.index)), c);
    });
    this.truncate(from + commits.length);
  }

  /** Replaces every commit file, whatever state the folder is in, with `commits` (all on the hub). */
  replaceLog(commits: readonly StoredCommit[]): void {
    rmSync(join(this.dir, "commits"), { recursive: true, force: true });
    this.writeCommits(0, commits);
    this.setOrigin({ head: commits[commits.length - 1]!.hash, length: commits.length });
  }

  /** Removes every commit file from index `length` on. */
  truncate(length: number): void {
    const dir = join(this.dir, "commits");
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const m = FILE.exec(name);
      if (m !== null && Number(m[1]) >= length) rmSync(join(dir, name));
    }
  }
}

/** The file name of the commit at `index`. */
export function fileName(index: number): string {
  return `${String(index).padStart(10, "0")}.json`;
}

/** The hash of a stored commit's content, or null when the content cannot be hashed at all. */
function recomputedHash(contractId: string, c: StoredCommit): string | null {
  try {
    return computeCommitHash(contractId, c.parent, c.data);
  } catch {
    return null;
  }
}

function damaged(index: number, why: string, hash?: string): ContractError {
  const details: Record<string, unknown> = { reason: "corrupted", index };
  if (hash !== undefined) details.hash = hash;
  return withRepair(new ContractError("CORRUPTED", `Working copy is damaged at commit ${index}: ${why}`, details));
}

/** The command that rebuilds a damaged local log from the hub. */
export const REPAIR_COMMAND = "contract-hub reset --hard origin";

/** A CORRUPTED error about the local log, naming the way out (`details.repair`, and a hint for people). */
export function withRepair(err: ContractError): ContractError {
  if (err.code !== "CORRUPTED" || err.details?.repair !== undefined) return err;
  const hint = `To rebuild the working copy from the hub (unpushed commits are lost): ${REPAIR_COMMAND}`;
  return new ContractError(err.code, err.message, { ...err.details, repair: REPAIR_COMMAND, hint }, { cause: err });
}

/**
 * Removes the build folders (`.contract.<pid>.tmp`) that init or clone runs left behind when
 * they were killed; a folder whose process still runs is another build in progress, left alone.
 */
function removeStaleBuilds(root: string): void {
  for (const name of readdirSync(root)) {
    const m = /^\.contract\.(\d+)\.tmp$/.exec(name);
    if (m !== null && !processRuns(Number(m[1]))) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** How long a command waits for another one's hold on the working copy. */
const LOCK_WAIT_MS = 30_000;

/** The lock files each command run holds, so that taking one again within the run is a no-op. */
const LOCKS_HELD = new WeakMap<object, Set<string>>();

/** The pid written in a lock file, or null while it is unreadable (just created, not yet written). */
function lockHolder(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function processRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Writes JSON through a temp file and a rename, so a crash never leaves half a file. */
function writeAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}
