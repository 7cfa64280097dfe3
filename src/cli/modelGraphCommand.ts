import type { Io } from "./Io.js";

/** `contract-hub model graph <file>` (implemented with the checker). */
export async function modelGraphCommand(_file: string, io: Io): Promise<number> {
  io.err("model graph: not implemented yet");
  return 1;
}
