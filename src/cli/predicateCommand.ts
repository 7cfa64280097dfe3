/**
 * `contract-hub predicate test|deploy`: write custom WASM predicates. `test` runs a module
 * on one input with the hub's runner and default limits (the same instrumentation, gas and
 * backstop) and prints `{valid, gas_used, errors}`; `deploy` commits the module at
 * `/_code/custom/<name>.wasm` in a working copy, validated locally like any commit.
 */
import { DEFAULT_GAS_LIMIT, type WasmPredicateInput } from "../predicates/wasm/WasmPredicateRunner.js";
import { createWasmRunner } from "../predicates/wasmRunner.js";
import { type Cli, runCommand, UsageError } from "./cliContext.js";
import { EXIT_FAILED, EXIT_OK, type Io } from "./Io.js";
import { readUserFile } from "./readUserFile.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";

export interface PredicateTestFlags {
  args?: string;
  state?: string;
  commit?: string;
  contract?: string;
  gasLimit?: string;
}

/** The commit a test input describes when `--commit` leaves a field out. */
const TEST_COMMIT: WasmPredicateInput["commit"] = {
  hash: "0".repeat(64),
  parent: null,
  data: [],
  labels: [],
  signers: [],
  timestamp: 0,
};

/** `predicate test FILE.wasm [--args JSON] [--state FILE] [--commit FILE] [--contract ID] [--gas-limit N]`. */
export function predicateTestCommand(file: string, opts: PredicateTestFlags, io: Io): Promise<number> {
  // The result is always one JSON document: it is what a hub would compute.
  return runCommand(io, { json: true }, "predicate test", async (cli) => {
    const bytes = readBytes(cli, file);
    const args = parseJson(opts.args ?? "[]", "--args");
    if (!Array.isArray(args)) throw new UsageError("--args must be a JSON array, e.g. '[\"ok\"]'");
    const state = opts.state === undefined ? {} : parseJson(readText(cli, opts.state), opts.state);
    if (typeof state !== "object" || state === null || Array.isArray(state))
      throw new UsageError(`${opts.state} must hold a JSON object of state paths to values`);
    const commit = opts.commit === undefined ? {} : parseJson(readText(cli, opts.commit), opts.commit);
    if (typeof commit !== "object" || commit === null || Array.isArray(commit))
      throw new UsageError(`${opts.commit} must hold a JSON object (hash, parent, data, labels, signers, timestamp)`);
    const gasLimit = opts.gasLimit === undefined ? DEFAULT_GAS_LIMIT : Number(opts.gasLimit);
    if (!Number.isSafeInteger(gasLimit) || gasLimit < 1) throw new UsageError("--gas-limit must be a positive integer");
    const runner = createWasmRunner({ workers: 1, gasLimit });
    try {
      const result = await runner(bytes, {
        args,
        contract_id: opts.contract ?? "c_test",
        commit: { ...TEST_COMMIT, ...commit },
        state,
      });
      cli.io.out(`${JSON.stringify(result, null, 2)}\n`);
      return result.valid ? EXIT_OK : EXIT_FAILED;
    } finally {
      await runner.close();
    }
  });
}

/** `predicate deploy NAME FILE.wasm [--action LABEL]… [--sign NAME]…`: a local commit posting the module. */
export function predicateDeployCommand(name: string, file: string, opts: CommitFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "predicate deploy", async (cli) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UsageError(
        `predicate name ${JSON.stringify(name)} must be letters, digits and _ (not starting with a digit)`,
      );
    const value = Buffer.from(readBytes(cli, file)).toString("base64");
    await commitLocally(cli, opts, [{ method: "post", path: `/_code/custom/${name}.wasm`, value }]);
    return undefined;
  });
}

function readBytes(cli: Cli, file: string): Uint8Array {
  return readUserFile(cli.cwd, file);
}

function readText(cli: Cli, file: string): string {
  return Buffer.from(readBytes(cli, file)).toString("utf8");
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not JSON: ${(err as Error).message}`);
  }
}
