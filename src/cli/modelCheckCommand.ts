import type { Io } from "./Io.js";

/** `contract-hub model check <model-file> <formula> [--json]` (implemented with the checker). */
export async function modelCheckCommand(
  _file: string,
  _formula: string,
  _opts: { json?: boolean },
  io: Io,
): Promise<number> {
  io.err("model check: not implemented yet");
  return 1;
}
