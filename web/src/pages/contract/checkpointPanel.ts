/**
 * The hub's latest signed checkpoint and a "verified in your browser" mark for the contract's
 * head: the checkpoint's signature and the head's inclusion proof are checked here with
 * WebCrypto (../../logProof.ts), not taken from the hub's word. Hidden when the hub has no log.
 */
import { get, optional } from "../../api.js";
import { h, mount } from "../../dom.js";
import { verifyInclusionInBrowser, verifyNote } from "../../logProof.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

interface LogKey {
  origin: string;
  public_key: string;
  verifier_key: string;
}

export function checkpointPanel(ctx: ContractPageContext): Panel {
  const root = h("section", { id: "checkpoint", hidden: true });
  return {
    root,
    async refresh() {
      const key = await optional<LogKey>("/checkpoint/key");
      const head = ctx.state?.head;
      if (ctx.stopped || key === null || head === undefined) return;
      const note = await get<string>("/checkpoint");
      const proof = await get<{ leaf_index: number; proof: string[] }>("/proofs/inclusion", { hash: head });
      const cp = await verifyNote(note, key.origin, key.public_key.replace(/^ed25519:/, ""));
      const included = cp !== null && (await verifyInclusionInBrowser(head, proof.leaf_index, proof.proof, cp));
      if (ctx.stopped) return;
      root.hidden = false;
      mount(
        root,
        h("h2", {}, "Transparency log"),
        h(
          "p",
          { id: "head-verified", class: included ? "ok" : "bad", "data-verified": String(included) },
          included
            ? `✓ Verified in your browser: the head is leaf ${proof.leaf_index} of the hub's signed log of ${cp!.size} commits.`
            : "✗ The head's proof or the checkpoint's signature did not verify in your browser.",
        ),
        h(
          "p",
          { class: "muted" },
          "Log key (compare it with one you got elsewhere): ",
          h("code", {}, key.verifier_key),
        ),
        h("pre", { class: "checkpoint" }, note),
      );
    },
  };
}
