import { InvalidModuleError } from "./InvalidModuleError.js";

/** Sequential reader over WebAssembly binary data (LEB128 integers, names, raw bytes). */
export class ByteReader {
  pos: number;
  readonly end: number;
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  /** True when every byte up to `end` has been consumed. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  /** One raw byte. */
  u8(): number {
    if (this.pos >= this.end) throw malformed(`unexpected end of data at offset ${this.pos}`);
    return this.bytes[this.pos++]!;
  }

  /** Unsigned LEB128 of at most 32 bits. */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.u8();
      // The fifth byte may only carry the top 4 bits; anything else is an overlong or too-large encoding.
      if (i === 4 && (b & 0xf0) !== 0) throw malformed(`u32 LEB128 out of range at offset ${this.pos - 1}`);
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return result;
    }
    throw malformed(`u32 LEB128 too long at offset ${this.pos}`);
  }

  /** Signed LEB128 of at most `bits` bits, returned as a bigint (exact for s33 and s64). */
  signed(bits: 32 | 33 | 64): bigint {
    let result = 0n;
    let shift = 0n;
    const maxBytes = Math.ceil(bits / 7);
    for (let i = 0; i < maxBytes; i++) {
      const b = this.u8();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if ((b & 0x80) === 0) {
        if (b & 0x40) result -= 1n << shift;
        const min = -(1n << BigInt(bits - 1));
        const max = (1n << BigInt(bits - 1)) - 1n;
        if (result < min || result > max) throw malformed(`s${bits} LEB128 out of range at offset ${this.pos - 1}`);
        return result;
      }
    }
    throw malformed(`s${bits} LEB128 too long at offset ${this.pos}`);
  }

  /** Signed 32-bit LEB128 as a number. */
  s32(): number {
    return Number(this.signed(32));
  }

  /** `n` raw bytes (a view, not a copy). */
  take(n: number): Uint8Array {
    if (n > this.end - this.pos)
      throw malformed(`${n} bytes needed at offset ${this.pos}, ${this.end - this.pos} left`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A length-prefixed UTF-8 name. */
  name(): string {
    const raw = this.take(this.u32());
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(raw);
    } catch {
      throw malformed(`name is not valid UTF-8 at offset ${this.pos - raw.length}`);
    }
  }
}

function malformed(detail: string): InvalidModuleError {
  return new InvalidModuleError("malformed", detail);
}
