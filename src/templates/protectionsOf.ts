import type { TemplateRule } from "./Template.js";

/** Party → its protections in words: the rules protecting it, and those protecting everyone. */
export function protectionsOf(
  rules: readonly TemplateRule[],
  roles: readonly string[],
  nameOf: (role: string) => string = (r) => r,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const role of roles) {
    const says = rules.filter((r) => r.protects === role || r.protects === "all").map((r) => r.says);
    if (says.length > 0) out[nameOf(role)] = `${says.join(". ")}.`;
  }
  return out;
}
