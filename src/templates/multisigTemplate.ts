import { paramError } from "./paramError.js";
import type { TemplateDefinition } from "./Template.js";

export const SIGNERS_DIR = "/signers";
const MAX_SIGNERS = 16;

/**
 * n-of-m multisig: any signer proposes (or revises, or withdraws) a proposal; executing it
 * needs `+threshold(n, /signers)`, at least n distinct keys stored under `/signers`.
 */
export const multisigTemplate: TemplateDefinition = {
  id: "multisig",
  name: "Multisig",
  description:
    "n-of-m approval: any of the m signers proposes; a proposal executes only with at least n of their signatures.",
  parties: ["signers"],
  params: [
    {
      name: "signers",
      type: "pubkeys",
      required: true,
      min: 1,
      max: MAX_SIGNERS,
      path: SIGNERS_DIR,
      description: "The m signer keys (written to /signers/signer_<i>.id)",
    },
    {
      name: "threshold",
      type: "integer",
      required: false,
      default: 2,
      min: 1,
      max: MAX_SIGNERS,
      path: "/terms/threshold.json",
      description: "n: signatures needed to execute (at most the number of signers)",
    },
    { name: "purpose", type: "text", required: false, path: "/terms/purpose.text", description: "What is governed" },
  ],
  exampleValues: { signers: [], threshold: 2 },
  validate(values) {
    const m = (values.signers as string[]).length;
    if (Number(values.threshold) > m) {
      throw paramError(
        "threshold",
        "param_out_of_range",
        `${values.threshold} signatures needed but only ${m} signers`,
      );
    }
  },
  build(values) {
    const n = Number(values.threshold ?? 2);
    // A commit may post alongside its action; one that added a key under /signers would let a
    // single signer meet the threshold with keys of its own, so no transition writes there.
    const any = `+any_signed(${SIGNERS_DIR}) -modifies(${SIGNERS_DIR})`;
    const quorum = `threshold(${n}, ${SIGNERS_DIR})`;
    const lines = [
      "initial idle",
      `idle -> proposed [+PROPOSE ${any}]`,
      `proposed -> proposed [+PROPOSE ${any}]`,
      `proposed -> idle [+WITHDRAW ${any}]`,
      `proposed -> executed [+EXECUTE +${quorum} -modifies(${SIGNERS_DIR})]`,
      `executed -> proposed [+PROPOSE ${any}]`,
    ];
    return {
      model: `model multisig {\n  ${lines.join("\n  ")}\n}`,
      rules: [
        {
          protects: "signers",
          says: `Nothing executes without ${n} of the signers' signatures`,
          formula: `always(!executed -> [-${quorum}] !executed)`,
        },
        {
          protects: "signers",
          says: "Only a signer can put a proposal forward",
          formula: `always([-any_signed(${SIGNERS_DIR})] !proposed)`,
        },
      ],
    };
  },
};
