/**
 * A proposal in words, for people about to sign it: what the commit does (its transition in
 * the model, each operation) and who has signed and who still must.
 */
import type { ProposalView } from "../api/responses.js";
import type { Operation } from "../contract/Commit.js";
import type { StateView } from "../contract/engine.js";

const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One operation in words: `action CANCEL`, `post /notes/x.text = "…"`, `rule /rules/r.modality`. */
export function operationText(op: Operation): string {
  switch (op.method) {
    case "action":
      return `action ${String(op.value)}`;
    case "model":
      return `replace the model (${String(op.value).length} characters)`;
    case "rule":
      return `add rule ${op.path ?? ""}`.trim();
    case "post":
    case "repost":
      return `${op.method} ${op.path} = ${clip(JSON.stringify(op.value))}`;
    default:
      return `${op.method} ${clip(JSON.stringify(op.value ?? null))}`;
  }
}

/** The model transitions the proposal's actions take from the current state (from the working copy's view). */
export function transitionText(p: Pick<ProposalView, "data">, view: StateView): string {
  const labels = p.data.filter((op) => op.method === "action").map((op) => String(op.value));
  const from = view.current_state || "(no model)";
  const targets = [...new Set(view.valid_actions.filter((a) => labels.includes(a.action)).map((a) => a.to))];
  if (labels.length === 0) return `${from}: no action`;
  return `${from} -> ${targets.length > 0 ? targets.join(" | ") : "?"} by ${labels.join(", ")}`;
}

/** The lines that describe a proposal. */
export function proposalLines(p: ProposalView, view: StateView | null): string[] {
  const lines = [`Proposal ${p.hash} (${p.status}) on ${p.contract_id}, proposed by ${p.proposer}`];
  if (view !== null && p.status === "open") lines.push(`  transition: ${transitionText(p, view)}`);
  for (const op of p.data) lines.push(`  ${operationText(op)}`);
  const signed = Object.keys(p.signatures);
  lines.push(`  signed by: ${signed.length > 0 ? signed.join(", ") : "nobody yet"}`);
  for (const m of p.missing)
    lines.push(`  still needs ${m.needed} signature(s) for ${m.predicate} from: ${m.signers.join(", ")}`);
  if (p.commit_index !== undefined) lines.push(`  committed at index ${p.commit_index}`);
  return lines;
}
