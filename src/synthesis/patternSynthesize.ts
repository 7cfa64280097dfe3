import { buildPrompt, promptText } from "./buildPrompt.js";
import { checkCandidate } from "./checkCandidate.js";
import { Draft, keyOf, type Party } from "./patterns/Draft.js";
import { type Choice, chooseFamily, rankFamilies } from "./patterns/families.js";
import { findParties } from "./patterns/findParties.js";
import { readDeal } from "./patterns/readDeal.js";
import { templateForHint } from "./recognizePattern.js";
import type { SynthesisResult } from "./SynthesisResult.js";

/** A family close to a description, for the 503's `details.closest`. */
export interface ClosestPattern {
  pattern: string;
  score: number;
  summary: string;
}

/** The three families closest to a description (by keyword score), for an answer that has none. */
export function closestPatterns(description: string): ClosestPattern[] {
  return rankFamilies(description)
    .slice(0, 3)
    .map((r) => ({ pattern: r.family.id, score: r.score, summary: r.family.summary }));
}

/** Confidence from how the family was chosen and how much of the cast the text named. */
function confidenceOf(choice: Choice, unnamed: number): number {
  let c = choice.via === "text" ? (choice.score >= 4 ? 0.85 : 0.65) : choice.via === "refined_hint" ? 0.85 : 0.8;
  if (choice.rivals.length > 0) c -= 0.2;
  c -= 0.05 * unnamed;
  return Math.round(Math.max(0.1, Math.min(0.95, c)) * 100) / 100;
}

/** The parties of the chosen family: its roles bound to names from the text, or its own cast. */
function castOf(choice: Choice, description: string, deal: ReturnType<typeof readDeal>) {
  const roles = choice.family.roles.filter((r) => r.when === undefined || r.when(deal));
  const found = findParties(description, roles);
  const parties: Party[] = [];
  for (const r of roles) {
    if (r.group) parties.push({ role: r.role, name: r.words[0]!, group: true });
    else parties.push({ role: r.role, name: found.names[r.role]! });
  }
  if (choice.family.cast !== undefined) {
    const free = found.people.filter((p) => !parties.some((x) => x.name === p));
    parties.push(...choice.family.cast(description, free, deal));
  }
  return { parties, found };
}

/**
 * The deterministic synthesizer used without a language-model key: picks the family the
 * description (or `pattern_hint`) asks for, binds its roles to the parties the text names,
 * and assembles the model and rules from parts (a dispute, a deadline exit, a refund…) as
 * the text asks. Every rule is checked on the model before answering. Null when no family
 * fits.
 */
export function patternSynthesize(description: string, hint?: string): SynthesisResult | null {
  const choice = chooseFamily(description, hint);
  if (choice === null) return null;
  const deal = readDeal(description);
  const { parties, found } = castOf(choice, description, deal);
  const draft = new Draft(choice.family.id, parties);
  choice.family.build(draft, deal);

  const warnings: string[] = [];
  if (hint !== undefined && choice.via === "text") {
    warnings.push(`pattern_hint "${hint.slice(0, 40)}" names no known pattern: the description was read instead`);
  }
  if (choice.via === "refined_hint") {
    warnings.push(`read as a ${choice.family.id}, the variant of the hinted pattern that the description describes`);
  }
  if (choice.via === "text" && choice.score < 4) {
    warnings.push(`recognised as ${choice.family.id} from weak cues only: check that this is the deal you mean`);
  }
  if (choice.rivals.length > 0) {
    warnings.push(
      `the description also reads as ${choice.rivals.join(" or ")}: pass pattern_hint to choose (answered as ${choice.family.id})`,
    );
  }
  for (const role of found.unnamed) {
    const p = parties.find((x) => x.role === role);
    if (p !== undefined) warnings.push(`no name found for the ${role.replace(/_/g, " ")}: called "${p.name}"`);
  }
  const unused = found.people.filter((name) => !parties.some((p) => p.name === name));
  if (unused.length > 0) {
    warnings.push(`named in the description but given no role: ${unused.join(", ")}`);
  }
  if (deal.amounts.length > 0) {
    warnings.push(
      `amounts (${[...new Set(deal.amounts)].join(", ")}) are not enforced by the model: record them under /terms`,
    );
  }
  for (const [path, what] of draft.terms) warnings.push(`post ${what} to ${path} when creating the contract`);
  warnings.push(...draft.warnings);

  const model = draft.model();
  const texts = draft.rules.map(
    (r) => `// ${r.says}\nexport default rule {\n  starting_at $PARENT\n  formula { ${r.formula} }\n}`,
  );
  const check = checkCandidate(model, texts);
  if (!check.compiled)
    throw new Error(`pattern ${choice.family.id} built a model that does not compile: ${check.modelError}`);
  const rules: string[] = [];
  const kept = draft.rules.filter((r, i) => {
    const verdict = check.rules[i]!;
    if (verdict.error === undefined) rules.push(verdict.text);
    else warnings.push(`dropped a rule that does not hold (${r.says}): ${verdict.error}`);
    return verdict.error === undefined;
  });
  draft.rules.splice(0, draft.rules.length, ...kept);
  const protections = draft.protections();
  for (const p of parties) {
    const dir = keyOf(p).replace(/\/[^/]+\.id$/, "");
    if (!model.includes(keyOf(p)) && !(p.key !== undefined && model.includes(`${dir})`))) {
      warnings.push(`${p.name} signs nothing in this model`);
    }
    if (protections[p.name] === undefined) warnings.push(`no rule protects ${p.name} in particular`);
  }
  const unnamedCount = found.unnamed.length;
  return {
    model,
    rules,
    parties: parties.map((p) => p.name),
    protections,
    prompt: promptText(buildPrompt(description, hint, templateForHint(hint))),
    source: "patterns",
    patterns: [choice.family.id, ...draft.parts.filter((x) => x !== choice.family.id)],
    confidence: confidenceOf(choice, unnamedCount),
    warnings,
  };
}
