/**
 * Turns the engine's refusal of a local commit (which transitions were tried and which of
 * their properties failed) into what the person did wrong: an action that does not exist
 * here, a signature from the wrong party, or a working copy the hub has moved past. The
 * findings go into the error's `details.diagnosis` (for --json and tests) and as sentences
 * into `details.hint` (printed under the refusal).
 */

import { ContractError } from "../contract/ContractError.js";
import type { ContractState } from "../contract/ContractState.js";
import { stateView } from "../contract/engine.js";
import type { Candidate } from "../contract/step.js";

/** Who signed the refused commit: the key's name and its public key (hex). */
export interface Signer {
  name: string;
  publicKey: string;
}

export type Diagnosis =
  | { kind: "unknown_action"; actions: string[]; valid: string[]; elsewhere: boolean }
  | { kind: "needs_signature"; action: string; needed: string[]; signed_as: SignedAs[] }
  | { kind: "behind_hub"; behind: number };

/** A signer of the refused commit and the state paths that hold its key (empty: no role here). */
export interface SignedAs {
  key: string;
  paths: string[];
}

/** What the engine's refusal says, in the terms of the commit that was attempted. */
export function diagnose(state: ContractState, err: ContractError, labels: string[], signers: Signer[]): Diagnosis[] {
  const candidates = (err.details?.candidates ?? []) as Candidate[];
  if (err.code !== "VALIDATION_FAILED" || state.model === null || candidates.length === 0) return [];
  const found: Diagnosis[] = [];
  const mentioned = (label: string) => candidates.some((c) => mentions(c.label, label));
  const unknown = labels.filter((l) => !mentioned(l));
  if (unknown.length > 0) {
    const valid = [
      ...new Set(
        stateView(state)
          .valid_actions.map((a) => a.action)
          .filter((a) => a !== ""),
      ),
    ];
    const inModel = state.model.lts.transitions.some((t) =>
      t.label.some((p) => p.sign === "+" && p.args === null && unknown.includes(p.name)),
    );
    found.push({ kind: "unknown_action", actions: unknown, valid, elsewhere: inModel });
    return found;
  }
  const signature = signatureDiagnosis(state, candidates, signers);
  if (signature !== null) found.push(signature);
  return found;
}

/**
 * The best candidates (fewest failures) that fail only for want of `signed_by` signatures:
 * whose signature they need, and as whom the commit was signed. This is the one place the
 * signature refusal is worded; other commands (proposals) may extend its hint.
 */
export function signatureDiagnosis(
  state: ContractState,
  candidates: readonly Candidate[],
  signers: readonly Signer[],
): Diagnosis | null {
  const fewest = Math.min(...candidates.map((c) => c.failed.length));
  const best = candidates.filter((c) => c.failed.length === fewest);
  const needed: string[] = [];
  let action = "";
  for (const c of best) {
    const paths = c.failed.map((f) =>
      f.kind === "missing" ? /^\+signed_by\((.+)\)$/.exec(f.property)?.[1] : undefined,
    );
    if (paths.some((p) => p === undefined)) return null;
    action ||= /\+([A-Z][A-Z0-9_]*)(?:\s|$)/.exec(c.label)?.[1] ?? "";
    for (const p of paths) if (!needed.includes(p!)) needed.push(p!);
  }
  const signedAs = signers.map((s) => ({
    key: s.name,
    paths: [...state.data].filter(([path, v]) => path.endsWith(".id") && v === s.publicKey).map(([path]) => path),
  }));
  return { kind: "needs_signature", action, needed, signed_as: signedAs };
}

/** The sentence a person reads for each finding. */
export function diagnosisText(d: Diagnosis): string {
  switch (d.kind) {
    case "unknown_action": {
      const what = d.actions.length === 1 ? `action ${d.actions[0]}` : `actions ${d.actions.join(", ")}`;
      const where = d.elsewhere ? "is not possible in the current state" : "does not exist in this contract's model";
      return `The ${what} ${where}; valid here: ${d.valid.length > 0 ? d.valid.join(", ") : "none"}`;
    }
    case "needs_signature": {
      const as = d.signed_as.map((s) =>
        s.paths.length > 0 ? `${s.key} (${s.paths.join(", ")})` : `${s.key} (no role here)`,
      );
      const needs = d.needed.map(roleOf).join(" or ");
      return `${d.action || "This transition"} needs ${needs}'s signature (${d.needed.join(", ")}); you signed as ${as.join(", ")}`;
    }
    case "behind_hub":
      return `The hub has moved on (${d.behind} commit${d.behind === 1 ? "" : "s"} you have not pulled): contract-hub pull, then try again`;
  }
}

/** The refusal with its diagnosis added to `details` (unchanged when there is none). */
export function withDiagnosis(err: ContractError, found: Diagnosis[]): ContractError {
  if (found.length === 0) return err;
  const hint = [err.details?.hint, ...found.map(diagnosisText)].filter((h) => typeof h === "string").join("\n");
  return new ContractError(err.code, err.message, { ...err.details, diagnosis: found, hint }, { cause: err });
}

/** `/users/buyer.id` → `buyer`; any other path stays as it is. */
function roleOf(path: string): string {
  return /^\/users\/([^/]+)\.id$/.exec(path)?.[1] ?? path;
}

/** Whether a label text (`+DEPOSIT +signed_by(…)`) carries the static property `+label`. */
function mentions(labelText: string, label: string): boolean {
  return labelText.split(/\s+/).includes(`+${label}`);
}
