/**
 * The closing `}` of the `{` at `open` and of every `{` met before it closes, in one scan:
 * index of `{` → index of its `}`, or -1 when the text ends (or a `/*` comment never ends)
 * first. Skips double-quoted strings (with backslash escapes) and `//` and `/* *\/` comments,
 * so braces inside them do not count. A scan from any of the braces it met would see the same
 * text outside strings, so their entries are what a scan from them would answer; a caller
 * looking at every brace of a text reuses them instead of scanning again from each (which
 * made a long run of unclosed braces cost the square of its length).
 */
export function braceMatches(text: string, open: number): Map<number, number> {
  const found = new Map<number, number>();
  const stack: number[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) break;
      i = end + 1;
    } else if (c === "{") {
      stack.push(i);
    } else if (c === "}") {
      const start = stack.pop();
      if (start === undefined) break;
      found.set(start, i);
      if (stack.length === 0) return found;
    }
  }
  for (const start of stack) found.set(start, -1);
  return found;
}
