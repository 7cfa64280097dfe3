import { RULE_MEMO_MIN_CHARS } from "../../contract/ruleParseMemo.js";

/** How many operations of one commit are looked at (the shape check refuses more anyway). */
const OPS_LOOKED_AT = 1024;
/** How many rules of a genesis are looked at (its shape check refuses more anyway). */
const GENESIS_RULES_LOOKED_AT = 1024;

/**
 * The texts of a commit as received (not validated yet) that its shape check will parse as
 * rules and that are big enough to parse in slices first: the genesis rules, a rule
 * operation's value, and a `.modality` value that fits a rule (the shape check tries it as a
 * model first, which bigModelTexts prepares, then as a rule: 15 such values held the event
 * loop 150 ms or more in one shape check). Texts longer than `maxChars` are left out: the size
 * check refuses them before any parse.
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
    const { method, path, value } = op as { method?: unknown; path?: unknown; value?: unknown };
    if (method === "rule") pick(value);
    else if ((method === "post" || method === "repost") && typeof path === "string" && path.endsWith(".modality"))
      pick(value);
    else if (method === "genesis") {
      const rules = (value as { rules?: unknown } | null)?.rules;
      if (Array.isArray(rules)) for (const text of rules.slice(0, GENESIS_RULES_LOOKED_AT)) pick(text);
    }
  }
  return texts;
}
