/**
 * JSON text with one duplicate member name planted in a chosen object of a value (hostile
 * bodies of attack 6): the second occurrence may be spelled with a unicode escape, so only a
 * parser that compares unescaped names notices it.
 */

/** How many objects `value` contains (each a place a duplicate can go). */
export function objectCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + objectCount(v), 0);
  if (value !== null && typeof value === "object") {
    return 1 + Object.values(value).reduce((n: number, v) => n + objectCount(v), 0);
  }
  return 0;
}

/** `name` with its first character written as `\uXXXX`. */
export function escapedName(name: string): string {
  if (name.length === 0) return '""';
  const first = name.charCodeAt(0).toString(16).padStart(4, "0");
  return `"\\u${first}${JSON.stringify(name.slice(1)).slice(1)}`;
}

/**
 * `value` serialized with a second member in object number `target` (pre-order) repeating one
 * of its names (or `"dup"` twice in an empty object), holding `extra`. Returns the text and
 * the repeated name.
 */
export function withDuplicate(
  value: unknown,
  target: number,
  options: { escape: boolean; extra: unknown; pick?: number },
): { text: string; name: string } {
  let seen = 0;
  let name = "";
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(write).join(",")}]`;
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    const me = seen++;
    const members = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${write(x)}`);
    if (me === target) {
      const keys = Object.keys(v);
      if (keys.length === 0) members.push('"dup":0');
      name = keys.length === 0 ? "dup" : keys[(options.pick ?? 0) % keys.length]!;
      members.push(`${options.escape ? escapedName(name) : JSON.stringify(name)}:${JSON.stringify(options.extra)}`);
    }
    return `{${members.join(",")}}`;
  };
  const text = write(value);
  return { text, name };
}
