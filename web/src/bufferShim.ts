/**
 * The checker shared with the hub (src/lang) compares state sets with
 * `Buffer.from(ab, off, len).equals(...)`; the browser has no Buffer, so this gives it that one
 * call. Imported first by main.ts, before anything that loads the checker.
 */
class ByteView {
  constructor(readonly bytes: Uint8Array) {}
  equals(other: unknown): boolean {
    const b = (other as ByteView).bytes;
    if (b.length !== this.bytes.length) return false;
    for (let i = 0; i < b.length; i++) if (b[i] !== this.bytes[i]) return false;
    return true;
  }
}

const g = globalThis as { Buffer?: unknown };
g.Buffer ??= {
  from: (buffer: ArrayBufferLike, byteOffset = 0, length?: number) =>
    new ByteView(new Uint8Array(buffer, byteOffset, length)),
};
