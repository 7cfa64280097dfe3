import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { pullAll } from "../client/sync.js";
import { buildWireCommit } from "../contract/buildWireCommit.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import { acceptGenesis, genesisData, stateView } from "../contract/engine.js";
import { parseModel, parseRule } from "../lang/parser.js";
import { instantiateTemplate } from "../templates/instantiateTemplate.js";
import { templateDefinition } from "../templates/templateDefinitions.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";
import { stateLine } from "./nextActions.js";
import { parsedIn } from "./parsedIn.js";
import { readUserFile } from "./readUserFile.js";
import type { CommitWarning } from "./workingCopy/commitLocally.js";
import { clientFor, type HubFlags, hubUrl, writingKey } from "./workingCopy/hubAccess.js";
import { checkWitnessesFirst, checkWorkingCopyLog, fetchLogKey, type WitnessPinFlags } from "./workingCopy/hubLog.js";
import { assignments, resolveIdentity } from "./workingCopy/identities.js";
import { acceptPulled, nowSeconds } from "./workingCopy/localLog.js";
import { unkeyedSigners } from "./workingCopy/unkeyedSigners.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

export interface InitFlags extends HubFlags, WitnessPinFlags {
  template?: string;
  param?: string[];
  model?: string;
  rule?: string[];
  party?: string[];
  id?: string;
}

/**
 * `contract-hub init [DIR]`: builds the genesis (from a template, or a model file, rule files
 * and parties at `/users/<role>.id`), validates it locally, creates the contract on the hub by
 * pushing it, and makes DIR (default: here) a working copy of it.
 */
export function initCommand(dir: string | undefined, opts: InitFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "init", async (cli: Cli) => {
    const root = resolve(cli.cwd, dir ?? ".");
    WorkingCopy.refuseExisting(root);
    const keys = KeyStore.of(cli.env);
    const url = hubUrl(cli, opts.hub, null);
    const key = writingKey(cli, opts.key, null);
    const { model, rules, state } = genesisInput(cli, keys, opts);
    const id = opts.id ?? `c_${randomBytes(12).toString("hex")}`;
    const genesis = buildWireCommit(id, null, genesisData({ model, rules, owner: key.publicKey, state }));
    // Refused here with the engine's explanation before the hub is asked.
    await acceptGenesis(id, genesis, { timestamp: nowSeconds() });
    const client = clientFor(cli, url, key);
    const pinned = await fetchLogKey(client, opts);
    await checkWitnessesFirst(client, pinned);
    let created = false;
    let wc: WorkingCopy;
    let contract: Awaited<ReturnType<typeof acceptPulled>>["state"];
    try {
      await client.push(id, [genesis]);
      created = true;
      const { commits } = await pullAll(client, id);
      const pulled = await acceptPulled(id, [], commits);
      contract = pulled.state;
      wc = WorkingCopy.create(root, { hub: url, contract_id: id, key: key.name }, pulled.log);
    } catch (err) {
      throw orphanNamed(err, { id, url, root, created });
    }
    await checkWorkingCopyLog(wc, client, pinned);
    const view = stateView(contract);
    const unkeyed = model === null ? [] : unkeyedSigners(parseModel(model), state);
    const warnings = unkeyed.map(unkeyedWarning);
    const doc = { contract_id: id, hub: url, dir: root, key: key.name, head: contract.head, state: view };
    report(
      cli,
      warnings.length === 0
        ? doc
        : { ...doc, warnings: warnings.map((w) => w.message), warning_codes: warnings.map((w) => w.code) },
      () => [`Created contract ${id} on ${url}`, `Working copy in ${root} (key ${key.name})`, stateLine(view)],
    );
    if (!cli.json) for (const w of warnings) cli.io.err(`warning: ${w.message}`);
    return undefined;
  });
}

/**
 * The warning for a `+signed_by` path the genesis leaves without a key (`signer_without_key`,
 * stable for scripts as send's codes are): one per path, since each is a role that whoever
 * posts its key first takes.
 */
function unkeyedWarning(path: string): CommitWarning {
  return {
    code: "signer_without_key",
    message: `no key at ${path}: the first commit that posts one there decides who signs as that party`,
  };
}

/**
 * The error of an init that stopped once the hub had (or may have) created the contract:
 * without its id the user could neither find it nor make a working copy of it, and running
 * init again makes a second one. Names it (`details.contract_id`) and the clone that finishes
 * the job (`details.clone`). A push the hub refused created nothing and is passed on as is.
 */
function orphanNamed(err: unknown, at: { id: string; url: string; root: string; created: boolean }): unknown {
  const e = isContractError(err)
    ? err
    : new ContractError("INTERNAL", err instanceof Error ? err.message : String(err));
  // A refusal the hub answered (not an answer lost on the way) means nothing was created.
  if (!at.created && !["UNAVAILABLE", "UPSTREAM_ERROR", "INTERNAL"].includes(e.code)) return err;
  const clone = `contract-hub clone ${at.url}/${at.id} ${at.root}`;
  const what = at.created ? "was created on the hub" : "may have been created on the hub";
  return new ContractError(
    e.code,
    `${e.message}; contract ${at.id} ${what}, but no working copy was made: ${clone}`,
    { ...e.details, contract_id: at.id, clone, hint: `To make the working copy: ${clone}` },
    { cause: err },
  );
}

function genesisInput(
  cli: Cli,
  keys: KeyStore,
  opts: InitFlags,
): { model: string | null; rules: string[]; state: Record<string, unknown> } {
  if (opts.template !== undefined && (opts.model !== undefined || (opts.rule ?? []).length > 0)) {
    throw new UsageError("--template cannot be combined with --model or --rule");
  }
  if (opts.template !== undefined) {
    if ((opts.party ?? []).length > 0) throw new UsageError("with --template, name parties with --param role=KEY");
    const def = templateDefinition(opts.template);
    const params: Record<string, unknown> = {};
    for (const [name, value] of assignments(opts.param, "--param")) {
      const type = def.params.find((p) => p.name === name)?.type;
      if (type === undefined) {
        throw new UsageError(
          `template ${def.id} has no parameter ${JSON.stringify(name)} (has: ${def.params.map((p) => p.name).join(", ")})`,
        );
      }
      params[name] =
        type === "pubkey"
          ? resolveIdentity(keys, value, `--param ${name}`)
          : type === "pubkeys"
            ? value.split(",").map((v) => resolveIdentity(keys, v.trim(), `--param ${name}`))
            : value;
    }
    const t = instantiateTemplate(def.id, params);
    return { model: t.model, rules: t.rules, state: t.state ?? {} };
  }
  if (opts.model === undefined) throw new UsageError("pass --template NAME or --model FILE");
  if ((opts.param ?? []).length > 0) throw new UsageError("--param needs --template");
  const read = (file: string) => readUserFile(cli.cwd, file).toString("utf8");
  const state: Record<string, unknown> = {};
  for (const [role, value] of assignments(opts.party, "--party")) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(role)) throw new UsageError(`invalid party role ${JSON.stringify(role)}`);
    state[`/users/${role}.id`] = resolveIdentity(keys, value, `--party ${role}`);
  }
  const model = read(opts.model);
  parsedIn(opts.model, () => parseModel(model));
  const rules = (opts.rule ?? []).map((file) => {
    const text = read(file);
    parsedIn(file, () => parseRule(text));
    return text;
  });
  return { model, rules, state };
}
