/**
 * The hub's latest signed checkpoint and a "verified in your browser" mark for the contract's
 * head: the checkpoint's signature and the head's inclusion proof are checked here with
 * WebCrypto (../../logProof.ts), not taken from the hub's word. A hub that requires witnesses
 * also gets a table of them: each cosignature on the served checkpoint is checked here too
 * (../../verifyCosignaturesInBrowser.ts), and the quorum line counts only those that verified;
 * the hub's own status fields are shown beside them, labelled as its report. Hidden when the
 * hub has no log.
 */
import { ApiError, get, optional } from "../../api.js";
import { h, mount, scrollTable, when } from "../../dom.js";
import { type BrowserCheckpoint, verifyInclusionInBrowser, verifyNote } from "../../logProof.js";
import {
  type CosignatureFailure,
  verifyCosignaturesInBrowser,
  type WitnessCosignature,
} from "../../verifyCosignaturesInBrowser.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

interface HubWitness {
  name: string;
  verifier_key: string;
  url: string;
  cosigned_size: number | null;
  error: string | null;
}

interface LogKey {
  origin: string;
  public_key: string;
  verifier_key: string;
  /** Only on a hub started with `--witness`. */
  witnesses?: { quorum: number; cosigned_size: number | null; tree_size: number | null; witnesses: HubWitness[] };
}

/** The head's place in the checkpoint: proven, refused, or numbered past it (a cosigned checkpoint lags). */
type HeadCheck = { kind: "proven"; leaf: number } | { kind: "failed" } | { kind: "pending"; leaf: number | null };

const FAILURE_TEXT: Record<CosignatureFailure, string> = {
  verifier_key: "the hub names no timestamped ed25519 verifier key of that name for it",
  malformed: "the line is not key id, timestamp and signature",
  key_id: "by another key than the witness's",
  signature: "the signature does not verify over this checkpoint",
};

/** The served checkpoint, or null when the hub has none to serve yet (503: no quorum of cosignatures). */
async function checkpointNote(): Promise<string | null> {
  try {
    return await get<string>("/checkpoint");
  } catch (err) {
    if (err instanceof ApiError && err.status === 503) return null;
    throw err;
  }
}

/** The head's inclusion in the tree of `cp`, asked for at that size (the hub's tree may have grown since). */
async function checkHead(head: string, cp: BrowserCheckpoint | null): Promise<HeadCheck> {
  if (cp === null) return { kind: "failed" };
  // A witnessed hub may serve the empty tree's cosigned checkpoint: no commit is in it yet.
  if (cp.size === 0) return { kind: "pending", leaf: null };
  try {
    const proof = await get<{ leaf_index: number; tree_size: number; proof: string[] }>("/proofs/inclusion", {
      hash: head,
      size: cp.size,
    });
    const ok = proof.tree_size === cp.size && (await verifyInclusionInBrowser(head, proof.leaf_index, proof.proof, cp));
    return ok ? { kind: "proven", leaf: proof.leaf_index } : { kind: "failed" };
  } catch (err) {
    // The hub numbered the head past this checkpoint: it is not in it yet, which is no failure.
    const leaf =
      err instanceof ApiError ? (err.body as { details?: { leaf_index?: unknown } })?.details?.leaf_index : null;
    if (typeof leaf === "number" && leaf >= cp.size) return { kind: "pending", leaf };
    throw err;
  }
}

function headMark(check: HeadCheck, cp: BrowserCheckpoint | null, served: boolean): HTMLElement {
  const attrs = (cls: string, verified: string) => ({ id: "head-verified", class: cls, "data-verified": verified });
  if (!served) {
    return h("p", attrs("muted", "none"), "The hub serves no checkpoint yet: none has its witnesses' cosignatures.");
  }
  if (check.kind === "proven") {
    return h(
      "p",
      attrs("ok", "true"),
      `✓ Verified in your browser: the head is leaf ${check.leaf} of the hub's signed log of ${cp!.size} commits.`,
    );
  }
  if (check.kind === "pending") {
    return h(
      "p",
      attrs("muted", "pending"),
      `The head${check.leaf === null ? "" : ` (leaf ${check.leaf})`} is past the hub's newest cosigned checkpoint of ${cp!.size} commits: it will be in the next one the witnesses cosign.`,
    );
  }
  return h(
    "p",
    attrs("bad", "false"),
    "✗ The head's proof or the checkpoint's signature did not verify in your browser.",
  );
}

function cosignatureCell(c: WitnessCosignature): HTMLElement {
  if (c.status === "verified") return h("td", { class: "ok" }, "✓ cosignature verified in your browser");
  if (c.status === "absent") return h("td", { class: "muted" }, "no cosignature on this checkpoint");
  return h("td", { class: "bad" }, `✗ cosignature refused: ${FAILURE_TEXT[c.reason]}`);
}

function witnessSection(
  witnesses: NonNullable<LogKey["witnesses"]>,
  cosignatures: WitnessCosignature[],
  signed: boolean,
) {
  const verified = signed ? cosignatures.filter((c) => c.status === "verified").length : 0;
  const met = signed && verified >= witnesses.quorum;
  const of = `${verified} of the ${witnesses.quorum} witness cosignature${witnesses.quorum === 1 ? "" : "s"} the hub requires`;
  return h(
    "div",
    {
      id: "witnesses",
      "data-quorum": witnesses.quorum,
      "data-verified-count": verified,
      "data-quorum-met": String(met),
    },
    h("h3", {}, "Witnesses"),
    h(
      "p",
      { id: "witness-quorum", class: met ? "ok" : "bad", "data-quorum-met": String(met) },
      !signed
        ? "✗ Quorum not met: the checkpoint's own signature did not verify, so no cosignature on it counts."
        : met
          ? `✓ Quorum met: ${of} verified in your browser.`
          : `✗ Quorum not met: ${of} verified in your browser.`,
    ),
    scrollTable(
      { class: "list witnesses" },
      h(
        "tr",
        {},
        h("th", {}, "witness"),
        h("th", {}, "on this checkpoint"),
        h("th", {}, "cosigned at"),
        h("th", {}, "the hub reports"),
      ),
      ...witnesses.witnesses.map((w, i) => {
        const c = cosignatures[i]!;
        const timestamp = c.status === "absent" ? null : c.timestamp;
        return h(
          "tr",
          {
            "data-witness": w.name,
            "data-cosignature": c.status,
            "data-reason": c.status === "failed" ? c.reason : null,
            "data-timestamp": timestamp,
          },
          h(
            "td",
            {},
            h("code", { class: "witness-name", title: w.verifier_key }, w.name),
            h("br"),
            h("small", {}, w.url),
          ),
          cosignatureCell(c),
          h("td", { class: "timestamp" }, timestamp === null ? "" : when(timestamp)),
          h(
            "td",
            { class: "muted" },
            w.cosigned_size === null ? "nothing cosigned yet" : `cosigned a tree of ${w.cosigned_size}`,
            w.error === null ? null : `; ${w.error}`,
          ),
        );
      }),
    ),
    h(
      "p",
      { class: "muted" },
      "Witness keys (compare them with ones you got elsewhere): ",
      ...witnesses.witnesses.flatMap((w) => [h("br"), h("code", { class: "witness-key" }, w.verifier_key)]),
    ),
  );
}

/** How long a page whose head waits for a cosigned checkpoint waits before asking again. */
const PENDING_RECHECK_MS = 5000;

export function checkpointPanel(ctx: ContractPageContext): Panel {
  const root = h("section", { id: "checkpoint", hidden: true });
  let recheck: ReturnType<typeof setTimeout> | undefined;
  const panel: Panel = {
    root,
    async refresh() {
      clearTimeout(recheck);
      const key = await optional<LogKey>("/checkpoint/key");
      const head = ctx.state?.head;
      if (ctx.stopped || key === null || head === undefined) return;
      const note = await checkpointNote();
      const cp = note === null ? null : await verifyNote(note, key.origin, key.public_key.replace(/^ed25519:/, ""));
      const check = await checkHead(head, cp);
      const cosignatures =
        key.witnesses === undefined ? [] : await verifyCosignaturesInBrowser(note ?? "", key.witnesses.witnesses);
      if (ctx.stopped) return;
      root.hidden = false;
      mount(
        root,
        h("h2", {}, "Transparency log"),
        headMark(check, cp, note !== null),
        key.witnesses === undefined ? null : witnessSection(key.witnesses, cosignatures, cp !== null),
        h(
          "p",
          { class: "muted" },
          "Log key (compare it with one you got elsewhere): ",
          h("code", {}, key.verifier_key),
        ),
        note === null ? null : h("pre", { class: "checkpoint" }, note),
      );
      // No commit event announces a newly cosigned checkpoint: a head still waiting for one is asked about again.
      if (note === null || check.kind === "pending") {
        recheck = setTimeout(() => ctx.enqueue(() => panel.refresh!()), PENDING_RECHECK_MS);
      }
    },
  };
  return panel;
}
