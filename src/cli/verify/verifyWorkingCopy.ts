/**
 * `verify` inside a working copy: every commit file is re-read and the log replayed without
 * trusting it (hashes, parent links, signatures, signer lists, transitions, rules), and the
 * origin ref must name a commit of the log. The first damaged commit is named.
 */
import { isContractError } from "../../contract/ContractError.js";
import { replayLog } from "../../contract/engine.js";
import { localWasmRunner } from "../../predicates/wasmRunner.js";
import type { WorkingCopy } from "../workingCopy/WorkingCopy.js";
import type { ContractReport } from "./verifyStore.js";

/** Verifies a working copy; never throws for damage, it reports it. */
export async function verifyWorkingCopy(wc: WorkingCopy): Promise<ContractReport> {
  const id = wc.config.contract_id;
  try {
    const commits = wc.readCommits();
    const state = await replayLog(id, commits, { trusted: false, wasm: localWasmRunner() });
    const origin = wc.origin();
    if (origin.length > commits.length || commits[origin.length - 1]?.hash !== origin.head) {
      return {
        contract_id: id,
        ok: false,
        commits: commits.length,
        head: state.head,
        damage: { index: null, message: `origin ref ${origin.head} (length ${origin.length}) is not in the log` },
      };
    }
    return { contract_id: id, ok: true, commits: commits.length, head: state.head };
  } catch (err) {
    if (!isContractError(err, "CORRUPTED")) throw err;
    const index = typeof err.details?.index === "number" ? err.details.index : null;
    const hash = typeof err.details?.hash === "string" ? err.details.hash : undefined;
    return {
      contract_id: id,
      ok: false,
      commits: wc.commitFilesCount(),
      head: null,
      damage: { index, ...(hash ? { hash } : {}), message: err.message },
    };
  }
}
