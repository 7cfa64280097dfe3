import { Parties } from "./Parties.js";
import type { TemplateDefinition } from "./Template.js";

const DEADLINE = "/terms/deadline.datetime";

/**
 * Atomic swap between two parties: each locks its side before the deadline (in either
 * order); once both are locked the swap can only settle; a lone lock is refunded to its owner
 * after the deadline. Either everything is exchanged or nothing is.
 */
export const atomicSwapTemplate: TemplateDefinition = {
  id: "atomic_swap",
  name: "Atomic Swap",
  description:
    "Two parties each lock their side before a deadline; once both are locked the swap settles and cannot be undone. " +
    "A side locked alone is refunded to its owner after the deadline.",
  parties: ["party_a", "party_b"],
  params: [
    { name: "party_a", type: "pubkey", required: true, path: "/users/party_a.id", description: "First party" },
    { name: "party_b", type: "pubkey", required: true, path: "/users/party_b.id", description: "Second party" },
    { name: "deadline", type: "datetime", required: true, path: DEADLINE, description: "Locks close; refunds open" },
    { name: "a_gives", type: "text", required: false, path: "/terms/a_gives.text", description: "Party A's side" },
    { name: "b_gives", type: "text", required: false, path: "/terms/b_gives.text", description: "Party B's side" },
  ],
  exampleValues: { party_a: "", party_b: "", deadline: "2030-01-01T00:00:00Z" },
  build(_values, names) {
    const p = new Parties(names);
    const a = p.signed("party_a");
    const b = p.signed("party_b");
    // A commit may post alongside its action; one that moved the deadline could reopen the locks
    // or the refunds at will, so no step writes it.
    const fixed = `-modifies(${DEADLINE})`;
    const lines = [
      "initial init",
      `init -> a_locked [+LOCK_A ${a} +before(${DEADLINE}) ${fixed}]`,
      `init -> b_locked [+LOCK_B ${b} +before(${DEADLINE}) ${fixed}]`,
      `a_locked -> locked [+LOCK_B ${b} +before(${DEADLINE}) ${fixed}]`,
      `b_locked -> locked [+LOCK_A ${a} +before(${DEADLINE}) ${fixed}]`,
      `a_locked -> refunded [+REFUND ${a} +after(${DEADLINE}) ${fixed}]`,
      `b_locked -> refunded [+REFUND ${b} +after(${DEADLINE}) ${fixed}]`,
      `locked -> swapped [+SWAP ${a} ${fixed}]`,
      `locked -> swapped [+SWAP ${b} ${fixed}]`,
      "swapped -> swapped []",
      "refunded -> refunded []",
    ];
    return {
      model: `model atomic_swap {\n  ${lines.join("\n  ")}\n}`,
      rules: [
        {
          protects: "all",
          says: "The swap settles only after both sides are locked",
          formula: "always(!locked & !swapped -> [] !swapped)",
        },
        {
          protects: "all",
          says: "Once both sides are locked, the swap can only settle",
          formula: "always(locked -> [] swapped) & always(locked -> <> swapped)",
        },
        {
          protects: "all",
          says: "Nothing is refunded before the deadline",
          formula: `always(!refunded -> [-after(${DEADLINE})] !refunded)`,
        },
        {
          protects: "party_a",
          says: `Only ${p.who("party_a")} can take back a side locked by ${p.who("party_a")}`,
          formula: `always(a_locked -> [-signed_by(${p.key("party_a")})] !refunded)`,
        },
        {
          protects: "party_b",
          says: `Only ${p.who("party_b")} can take back a side locked by ${p.who("party_b")}`,
          formula: `always(b_locked -> [-signed_by(${p.key("party_b")})] !refunded)`,
        },
      ],
    };
  },
};
