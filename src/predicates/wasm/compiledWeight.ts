import { ByteReader } from "./ByteReader.js";

/** Memory a compiled function holds beyond its bytes, roughly (machine code and metadata). */
export const FUNCTION_WEIGHT = 1024;
/** Compiled code is some times the size of the module's bytes. */
const BYTES_FACTOR = 4;

/**
 * What a module costs the compilation cache, in estimated bytes of memory: some times its
 * bytes, plus FUNCTION_WEIGHT per declared function. Compiled memory follows the function
 * count more than the bytes: a module of 60,000 empty functions is 240 KB and held 15 to
 * 50 MB compiled (measured, Node 20), so the former bound of 64 MiB of module bytes let the
 * cache's 128 entries hold gigabytes. Only the section headers and the function section's count are read; bytes
 * that are not a module weigh by their length (the compile refuses them anyway).
 */
export function compiledWeight(bytes: Uint8Array): number {
  return BYTES_FACTOR * bytes.length + FUNCTION_WEIGHT * declaredFunctions(bytes);
}

function declaredFunctions(bytes: Uint8Array): number {
  const FUNCTION_SECTION = 3;
  try {
    const r = new ByteReader(bytes, 8);
    while (!r.done) {
      const id = r.u8();
      const size = r.u32();
      if (id === FUNCTION_SECTION) return r.u32();
      r.pos += size;
    }
  } catch {
    // Malformed: weigh the bytes alone.
  }
  return 0;
}
