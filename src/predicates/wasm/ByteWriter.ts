/** Growable byte buffer with the LEB128 encodings WebAssembly uses. */
export class ByteWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  /** Number of bytes written so far. */
  get length(): number {
    return this.len;
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** One raw byte. */
  u8(b: number): this {
    this.ensure(1);
    this.buf[this.len++] = b & 0xff;
    return this;
  }

  /** Raw bytes. */
  bytes(data: Uint8Array): this {
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  /** Unsigned LEB128 (0 ≤ n < 2^32). */
  u32(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 out of range: ${n}`);
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n !== 0) b |= 0x80;
      this.u8(b);
    } while (n !== 0);
    return this;
  }

  /** Signed LEB128 of any width (the caller keeps the value within the target type). */
  signed(v: bigint | number): this {
    let n = BigInt(v);
    for (;;) {
      const b = Number(n & 0x7fn);
      n >>= 7n;
      const signBitSet = (b & 0x40) !== 0;
      if ((n === 0n && !signBitSet) || (n === -1n && signBitSet)) {
        this.u8(b);
        return this;
      }
      this.u8(b | 0x80);
    }
  }

  /** A length-prefixed UTF-8 name. */
  name(s: string): this {
    const raw = new TextEncoder().encode(s);
    return this.u32(raw.length).bytes(raw);
  }

  /** The bytes written so far (a copy). */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
