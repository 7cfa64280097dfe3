import { basename, extname } from "node:path";
import type { Operation } from "../contract/Commit.js";
import { MODEL_PATH, pathExtension } from "../contract/pathTypes.js";
import { parseModel, parseRule } from "../lang/parser.js";
import { type Cli, runCommand, UsageError } from "./cliContext.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";
import { parsedIn } from "./parsedIn.js";
import { readUserFile } from "./readUserFile.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { resolveIdentity } from "./workingCopy/identities.js";

export interface CommitCommandFlags extends CommitFlags {
  post?: string;
  model?: string;
  rule?: string[];
  ruleName?: string;
}

/**
 * `contract-hub commit [--post PATH VALUE] [--model FILE] [--rule FILE] [--action LABEL]…
 * [--sign NAME]…`: one local commit, validated by the engine before it is written.
 */
export function commitCommand(value: string | undefined, opts: CommitCommandFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "commit", async (cli: Cli) => {
    await commitLocally(cli, opts, operationsOf(cli, value, opts));
    return undefined;
  });
}

/** The operations of `commit`'s flags (before the --action ones), shared with `propose`. */
export function operationsOf(cli: Cli, value: string | undefined, opts: CommitCommandFlags): Operation[] {
  const ops: Operation[] = [];
  if (opts.post !== undefined) {
    if (value === undefined) throw new UsageError(`--post ${opts.post} needs a value: commit --post PATH VALUE`);
    ops.push({ method: "post", path: opts.post, value: postValue(cli, opts.post, value) });
  } else if (value !== undefined) {
    throw new UsageError(`unexpected argument ${JSON.stringify(value)} (a value goes with --post PATH)`);
  }
  if (opts.model !== undefined) {
    const text = readText(cli, opts.model);
    // A syntax error names the file given, as init does, not the state path it would go to.
    parsedIn(opts.model, () => parseModel(text));
    ops.push({ method: "model", path: MODEL_PATH, value: text });
  }
  const rules = opts.rule ?? [];
  if (opts.ruleName !== undefined && rules.length !== 1) throw new UsageError("--rule-name goes with one --rule");
  for (const file of rules) {
    const name = opts.ruleName ?? basename(file, extname(file));
    if (!RULE_NAME.test(name)) {
      throw new UsageError(
        `${opts.ruleName === undefined ? `the name of ${file}` : "--rule-name"} gives the rule path /rules/${name}.modality, ` +
          `but a path segment is letters, digits, "_", "." or "-"${opts.ruleName === undefined ? ": pass --rule-name NAME" : ""}`,
      );
    }
    const text = readText(cli, file);
    parsedIn(file, () => parseRule(text));
    ops.push({ method: "rule", path: `/rules/${name}.modality`, value: text });
  }
  return ops;
}

/** A rule's name: one state path segment (docs/engine.md), and not `.` or `..`. */
const RULE_NAME = /^(?!\.\.?$)[A-Za-z0-9_.-]+$/;

/** The value typed by the path's extension: JSON for .json, a boolean for .bool, a key for .id, else text. */
function postValue(cli: Cli, path: string, text: string): unknown {
  switch (pathExtension(path)) {
    case ".json":
      try {
        return JSON.parse(text);
      } catch {
        throw new UsageError(`the value for ${path} must be JSON, got ${JSON.stringify(text.slice(0, 40))}`);
      }
    case ".bool":
      if (text !== "true" && text !== "false") throw new UsageError(`the value for ${path} must be true or false`);
      return text === "true";
    case ".id":
      return resolveIdentity(KeyStore.of(cli.env), text, path);
    default:
      return text;
  }
}

function readText(cli: Cli, file: string): string {
  return readUserFile(cli.cwd, file).toString("utf8");
}
