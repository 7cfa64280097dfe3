import type { ByteReader } from "./ByteReader.js";
import { InvalidModuleError } from "./InvalidModuleError.js";

/** Opcode of a 0xFC-prefixed instruction as returned by `decodeInstruction`. */
export const FC = 0xfc00;

/** Opcodes the injector cares about by name. */
export const Op = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  brTable: 0x0e,
  return: 0x0f,
  call: 0x10,
  callIndirect: 0x11,
  memoryGrow: 0x40,
  memoryInit: FC + 8,
  memoryCopy: FC + 10,
  memoryFill: FC + 11,
  tableInit: FC + 12,
  tableCopy: FC + 14,
} as const;

/** Value type bytes. */
export const ValType = {
  i32: 0x7f,
  i64: 0x7e,
  f32: 0x7d,
  f64: 0x7c,
  v128: 0x7b,
  funcref: 0x70,
  externref: 0x6f,
} as const;

/**
 * Checks that a value type is one predicates may use: i32 or i64. Floats are refused for
 * determinism (V8 does not canonicalise NaN bit patterns, which differ between x86 and
 * ARM and are observable through reinterpret and stores), the rest name their proposal.
 */
export function checkValType(t: number, where: string): void {
  if (t === ValType.i32 || t === ValType.i64) return;
  if (t === ValType.f32 || t === ValType.f64)
    throw new InvalidModuleError("floating point", `f32/f64 type in ${where}`);
  if (t === ValType.v128) throw new InvalidModuleError("SIMD", `v128 type in ${where}`);
  if (t === ValType.funcref || t === ValType.externref)
    throw new InvalidModuleError("reference types", `reference type in ${where}`);
  throw new InvalidModuleError("GC", `type 0x${t.toString(16)} in ${where}`);
}

/** True for instructions that produce or consume f32/f64 values (MVP floats and saturating truncations). */
export function isFloatOp(op: number): boolean {
  if (op >= FC) return op <= FC + 7;
  if (op === 0x2a || op === 0x2b || op === 0x38 || op === 0x39 || op === 0x43 || op === 0x44) return true;
  if (op >= 0x5b && op <= 0x66) return true;
  return op >= 0x8b && op <= 0xbf && op !== 0xa7 && op !== 0xac && op !== 0xad;
}

/**
 * Decodes one instruction at the reader's position and returns its opcode (0xFC-prefixed
 * ones as `FC + sub-opcode`), leaving the reader after its immediates. Covers the MVP
 * (floats included, so the caller can reject them by name), sign extension, bulk memory,
 * multi-value block types and saturating float-to-int. Every other proposal's encoding is
 * rejected here with the proposal's name, since its immediates are not decoded.
 */
export function decodeInstruction(r: ByteReader): number {
  const at = r.pos;
  const op = r.u8();
  if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b) return op;
  if (op >= 0x45 && op <= 0xc4) return op;
  switch (op) {
    case 0x02:
    case 0x03:
    case 0x04:
      blockType(r);
      return op;
    case 0x0c:
    case 0x0d:
    case 0x10:
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
    case 0x24:
      r.u32();
      return op;
    case 0x0e: {
      const n = r.u32();
      for (let i = 0; i <= n; i++) r.u32();
      return op;
    }
    case 0x11:
      r.u32();
      if (r.u32() !== 0) throw new InvalidModuleError("reference types", `call_indirect on table > 0 at offset ${at}`);
      return op;
    case 0x1c: {
      const n = r.u32();
      if (n !== 1) throw new InvalidModuleError("malformed", `typed select with ${n} types at offset ${at}`);
      checkValType(r.u8(), `select at offset ${at}`);
      return op;
    }
    case 0x3f:
    case 0x40:
      memIndex(r, at);
      return op;
    case 0x41:
      r.signed(32);
      return op;
    case 0x42:
      r.signed(64);
      return op;
    case 0x43:
      r.take(4);
      return op;
    case 0x44:
      r.take(8);
      return op;
    case 0xfc:
      return prefixedFC(r, at);
  }
  if (op >= 0x28 && op <= 0x3e) {
    // Bit 6 of the alignment field announces an explicit memory index (multi-memory).
    if (r.u32() >= 64) throw new InvalidModuleError("multi-memory", `memory index in memarg at offset ${at}`);
    r.u32();
    return op;
  }
  throw unsupportedOpcode(op, at);
}

function prefixedFC(r: ByteReader, at: number): number {
  const sub = r.u32();
  switch (sub) {
    case 8:
      r.u32();
      memIndex(r, at);
      break;
    case 9:
    case 13:
      r.u32();
      break;
    case 10:
      memIndex(r, at);
      memIndex(r, at);
      break;
    case 11:
      memIndex(r, at);
      break;
    case 12:
    case 14:
      r.u32();
      if (r.u32() !== 0) throw new InvalidModuleError("reference types", `table index > 0 at offset ${at}`);
      break;
    case 15:
    case 16:
    case 17:
      throw new InvalidModuleError("reference types", `table.grow/size/fill at offset ${at}`);
    default:
      if (sub > 7) throw new InvalidModuleError("unknown instruction", `0xfc ${sub} at offset ${at}`);
  }
  return FC + sub;
}

function memIndex(r: ByteReader, at: number): void {
  if (r.u32() !== 0) throw new InvalidModuleError("multi-memory", `memory index > 0 at offset ${at}`);
}

function blockType(r: ByteReader): void {
  const at = r.pos;
  const t = r.signed(33);
  if (t >= 0n || t === -64n) return; // a type index (multi-value) or the empty type
  checkValType(Number(t & 0x7fn), `block type at offset ${at}`);
}

function unsupportedOpcode(op: number, at: number): InvalidModuleError {
  const where = `opcode 0x${op.toString(16)} at offset ${at}`;
  if ((op >= 0x06 && op <= 0x0a) || op === 0x18 || op === 0x19 || op === 0x1f)
    return new InvalidModuleError("exceptions", where);
  if (op === 0x12 || op === 0x13) return new InvalidModuleError("tail calls", where);
  if (op === 0x14 || op === 0x15 || (op >= 0xd3 && op <= 0xd6) || op === 0xfb)
    return new InvalidModuleError("GC", where);
  if (op === 0x25 || op === 0x26 || (op >= 0xd0 && op <= 0xd2)) return new InvalidModuleError("reference types", where);
  if (op === 0xfd) return new InvalidModuleError("SIMD", where);
  if (op === 0xfe) return new InvalidModuleError("threads", where);
  return new InvalidModuleError("unknown instruction", where);
}
