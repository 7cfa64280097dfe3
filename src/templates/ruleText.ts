import type { TemplateRule } from "./Template.js";

/** A rule's source text: its guarantee as a comment, then the RFC envelope anchored at `$PARENT`. */
export function ruleText(rule: Pick<TemplateRule, "formula" | "says">): string {
  return `// ${rule.says}\nexport default rule {\n  starting_at $PARENT\n  formula { ${rule.formula} }\n}`;
}
