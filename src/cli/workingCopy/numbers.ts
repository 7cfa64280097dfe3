import { UsageError } from "../cliContext.js";

/** A positive safe integer from a flag; a usage error naming the flag otherwise. */
export function positiveInteger(text: string | undefined, flag: string): number {
  if (text === undefined) throw new UsageError(`${flag} is required`);
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

/** A required string flag. */
export function required(text: string | undefined, flag: string): string {
  if (text === undefined || text === "") throw new UsageError(`${flag} is required`);
  return text;
}
