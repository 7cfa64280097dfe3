import { RULE_MEMO_MIN_CHARS } from "../../contract/ruleParseMemo.js";

/** How many operations of one commit are looked at (the shape check refuses more anyway). */
const OPS_LOOKED_AT = 1024;
/** How many rules of a genesis are looked at (its shape check refuses more anyway). */
const GENESIS_RULES_LOOKED_AT = 1024;

/**
 * The texts of a commit as received (not validated yet) that its shape check will parse as
 * rules and that are big enough to parse in slices first: the genesis rules and a rule
 * operation's value. Texts longer than `maxChars` are left out: the size check refuses them
 * before any parse. (A `.modality` value is tried as a model first; bigModelTexts has it.)
 */
export function bigRuleTexts(raw: unknown, maxChars: number): string[] {
  const data = (raw as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const texts: string[] = [];
  const pick = (text: unknown) => {
    if (typeof text === "string" && text.length >= RULE_MEMO_MIN_CHARS && text.length <= maxChars) texts.push(text);
  };
  for (const op of data.slice(0, OPS_LOOKED_AT)) {
    if (op === null || typeof op !== "object") continue;
    const { method, value } = op as { method?: unknown; value?: unknown };
    if (method === "rule") pick(value);
    else if (method === "genesis") {
      const rules = (value as { rules?: unknown } | null)?.rules;
      if (Array.isArray(rules)) for (const text of rules.slice(0, GENESIS_RULES_LOOKED_AT)) pick(text);
    }
  }
  return texts;
}
