import { protectionsOf } from "../templates/protectionsOf.js";
import { ruleText } from "../templates/ruleText.js";
import type { ParamValues } from "../templates/Template.js";
import { templateDefinition } from "../templates/templateDefinitions.js";
import { buildPrompt, promptText } from "./buildPrompt.js";
import { extractParties } from "./extractParties.js";
import { recognizePattern } from "./recognizePattern.js";
import type { SynthesisResult } from "./SynthesisResult.js";

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const NUM = "(\\d+|one|two|three|four|five|six|seven|eight|nine|ten)";

function num(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  return NUMBER_WORDS[word.toLowerCase()] ?? Number(word);
}

/** Milestone count: "three milestones", "in 3 phases", "2 deliverables" (1..10, default 2). */
function milestoneCount(text: string): number {
  const m = new RegExp(
    `\\b${NUM}[- ](?:\\w+ )?(?:milestones?|phases?|stages?|deliverables|installments?|tranches?|parts)\\b`,
    "i",
  ).exec(text);
  const n = num(m?.[1]);
  return n !== undefined && n >= 1 && n <= 10 ? n : 2;
}

/** n of m for a multisig: "2-of-3", "3 of 5 directors", "both", "all", "a majority". */
function quorum(text: string, people: number): { n: number; m: number } {
  const of = new RegExp(`\\b${NUM}[- ]of[- ](?:the |our |its )?${NUM}\\b`, "i").exec(text);
  let m = num(of?.[2]) ?? (people >= 2 ? people : undefined);
  let n = num(of?.[1]);
  if (n === undefined && /\bboth\b/i.test(text)) n = m = m ?? 2;
  if (n === undefined && m !== undefined && /\b(all|every|each)\b/i.test(text)) n = m;
  if (n === undefined && m !== undefined && /\bmajority\b/i.test(text)) n = Math.floor(m / 2) + 1;
  m ??= Math.max(3, n ?? 0);
  n ??= Math.min(2, m);
  return { n: Math.max(1, Math.min(n, m, 16)), m: Math.min(m, 16) };
}

/**
 * The deterministic synthesizer used without a language-model key: recognises the
 * description (or `pattern_hint`) as one of the templates, names the parties from the text,
 * and answers with that template's checked model and rules. Null when nothing is recognised.
 */
export function patternSynthesize(description: string, hint?: string): SynthesisResult | null {
  const id = recognizePattern(description, hint);
  if (id === null) return null;
  const def = templateDefinition(id);
  const warnings = [`answered by the pattern synthesizer from the "${id}" template (no language model was used)`];
  const values: ParamValues = { ...def.exampleValues };
  let roles = def.parties.filter((r) => r !== "arbiter");
  if (id === "escrow") {
    delete values.arbiter;
    if (/\b(arbit\w*|mediat\w*|disput\w*|judge|referee)\b/i.test(description)) {
      roles = [...roles, "arbiter"];
      values.arbiter = "";
    }
  }
  if (id === "milestone") values.milestones = milestoneCount(description);
  const found = extractParties(description, id, roles);
  let parties = roles.map((r) => found.names[r]!);
  let protections: Record<string, string>;
  const body = (() => {
    if (id !== "multisig") return def.build(values, found.names);
    const { n, m } = quorum(description, found.people.length);
    values.threshold = n;
    parties =
      found.people.length >= m ? found.people.slice(0, m) : Array.from({ length: m }, (_, i) => `signer_${i + 1}`);
    warnings.push(`each signer's key goes under /signers (e.g. /signers/${parties[0]}.id); ${n} of ${m} must sign`);
    return def.build(values, found.names);
  })();
  if (id === "multisig") {
    const says = protectionsOf(body.rules, ["signers"]).signers!;
    protections = Object.fromEntries(parties.map((p) => [p, says]));
  } else {
    protections = protectionsOf(body.rules, roles, (r) => found.names[r]!);
    for (const role of found.unnamed) warnings.push(`no name found for the ${role}: called "${found.names[role]}"`);
  }
  return {
    model: body.model,
    rules: body.rules.map(ruleText),
    parties,
    protections,
    prompt: promptText(buildPrompt(description, hint, id)),
    source: "patterns",
    warnings,
    template: id,
  };
}
