/** `1 commit`, `2 commits`: a number with its noun for people. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
