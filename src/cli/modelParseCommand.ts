import type { Io } from "./Io.js";

/** `contract-hub model parse <file> [--json]` (implemented with the parser). */
export async function modelParseCommand(_file: string, _opts: { json?: boolean }, io: Io): Promise<number> {
  io.err("model parse: not implemented yet");
  return 1;
}
