import { ByteReader } from "./ByteReader.js";
import { ByteWriter } from "./ByteWriter.js";
import { decodeInstruction, Op, ValType } from "./decodeInstruction.js";
import { dynamicUnitCost, instructionCost } from "./gasCosts.js";
import { InvalidModuleError } from "./InvalidModuleError.js";
import { type ParsedModule, parseModule, RESERVED_EXPORT_PREFIX, SECTION_ORDER } from "./parseModule.js";
import { wasm } from "./wasmApi.js";

/** Exported mutable i64 global holding the remaining gas; negative means exhausted. */
export const GAS_EXPORT = `${RESERVED_EXPORT_PREFIX}gas`;
/** Exported mutable i32 global holding the current call depth in stack slots. */
export const DEPTH_EXPORT = `${RESERVED_EXPORT_PREFIX}depth`;
/** Export name of the module's former start function, which the host calls metered before alloc. */
export const START_EXPORT = `${RESERVED_EXPORT_PREFIX}start`;
/**
 * Call-stack budget in 8-byte slots. Each call adds its callee's frame weight (params,
 * locals, an operand-stack bound and a fixed header); past this budget the call traps, so
 * deep recursion fails at the same depth on every machine instead of at V8's stack limit.
 * The runner gives its worker twice this much native stack.
 */
export const MAX_STACK_SLOTS = 1 << 19;
const FRAME_HEADER_SLOTS = 16;

/**
 * Rewrites a module for metered execution: checks the predicate policy (see
 * `parseModule`), appends the gas and depth globals and exports them under reserved names,
 * charges every metering block on entry and bulk/grow instructions by size, caps memory at
 * `maxMemoryPages`, and validates the result. Function, global and type indices are unchanged.
 */
export function instrumentModule(bytes: Uint8Array, maxMemoryPages: number): Uint8Array {
  const m = parseModule(bytes, maxMemoryPages);
  // Checked before instrumenting: code naming a global or function the module lacks would
  // name the appended gas or depth global afterwards (and could refill its own budget).
  if (!wasm.validate(bytes)) throw new InvalidModuleError("invalid", compileErrorOf(bytes));
  const gas = m.globalCount;
  const depth = gas + 1;
  const out = new ByteWriter();
  out.bytes(bytes.subarray(0, 8));
  let globalsWritten = false;
  const globalRank = SECTION_ORDER.indexOf(6);
  for (const sec of m.sections) {
    const rank = SECTION_ORDER.indexOf(sec.id);
    if (!globalsWritten && sec.id !== 0 && rank > globalRank) {
      writeSection(out, 6, globalSection(m, undefined));
      globalsWritten = true;
    }
    const payload = bytes.subarray(sec.start, sec.end);
    switch (sec.id) {
      case 5:
        writeSection(out, 5, memorySection(m, maxMemoryPages));
        break;
      case 6:
        writeSection(out, 6, globalSection(m, payload));
        globalsWritten = true;
        break;
      case 7:
        writeSection(out, 7, exportSection(payload, gas, depth, m.start));
        break;
      case 8:
        break; // the start function is exported instead (START_EXPORT)
      case 10:
        writeSection(out, 10, codeSection(m, gas, depth));
        break;
      default:
        writeSection(out, sec.id, payload);
    }
  }
  if (!globalsWritten) writeSection(out, 6, globalSection(m, undefined));
  const result = out.toBytes();
  if (!wasm.validate(result)) throw new Error("internal: instrumentation produced a module that does not validate");
  return result;
}

function compileErrorOf(bytes: Uint8Array): string {
  try {
    new wasm.Module(bytes);
    return "rejected by WebAssembly.validate";
  } catch (e) {
    return (e as Error).message;
  }
}

function writeSection(out: ByteWriter, id: number, payload: Uint8Array): void {
  out.u8(id).u32(payload.length).bytes(payload);
}

function memorySection(m: ParsedModule, maxPages: number): Uint8Array {
  // An explicit maximum makes memory.grow past the limit return -1 instead of growing.
  return new ByteWriter()
    .u32(1)
    .u8(1)
    .u32(m.memory.min)
    .u32(Math.min(m.memory.max ?? maxPages, maxPages))
    .toBytes();
}

function globalSection(m: ParsedModule, payload: Uint8Array | undefined): Uint8Array {
  const w = new ByteWriter().u32(m.globalCount + 2);
  if (payload) {
    const r = new ByteReader(payload);
    r.u32();
    w.bytes(payload.subarray(r.pos));
  }
  w.u8(ValType.i64).u8(1).u8(0x42).u8(0).u8(Op.end);
  w.u8(ValType.i32).u8(1).u8(0x41).u8(0).u8(Op.end);
  return w.toBytes();
}

function exportSection(payload: Uint8Array, gas: number, depth: number, start: number | undefined): Uint8Array {
  const r = new ByteReader(payload);
  const count = r.u32();
  const w = new ByteWriter().u32(count + (start === undefined ? 2 : 3)).bytes(payload.subarray(r.pos));
  w.name(GAS_EXPORT).u8(3).u32(gas);
  w.name(DEPTH_EXPORT).u8(3).u32(depth);
  if (start !== undefined) w.name(START_EXPORT).u8(0).u32(start);
  return w.toBytes();
}

function codeSection(m: ParsedModule, gas: number, depth: number): Uint8Array {
  const w = new ByteWriter().u32(m.bodies.length);
  m.bodies.forEach((b, i) => {
    const type = m.types[m.funcTypes[m.importedFuncs + i]!]!;
    const body = instrumentBody(m.bytes, b.start, b.end, type.params.length, { gas, depth, m });
    w.u32(body.length).bytes(body);
  });
  return w.toBytes();
}

interface Ctx {
  gas: number;
  depth: number;
  m: ParsedModule;
}

function isTerminator(op: number): boolean {
  return op === Op.unreachable || (op >= Op.block && op <= Op.else) || (op >= Op.end && op <= Op.return);
}

function instrumentBody(bytes: Uint8Array, start: number, end: number, params: number, ctx: Ctx): Uint8Array {
  const r = new ByteReader(bytes, start, end);
  let locals = 0;
  const declCount = r.u32();
  for (let i = 0; i < declCount; i++) {
    locals += r.u32();
    r.u8();
  }
  const declEnd = r.pos;
  const ops: number[] = [];
  const starts: number[] = [];
  let needsScratch = false;
  let stackBound = 0;
  while (!r.done) {
    starts.push(r.pos);
    const op = decodeInstruction(r);
    ops.push(op);
    if (op === Op.call || op === Op.callIndirect || dynamicUnitCost(op) > 0) needsScratch = true;
    stackBound += callResults(op, bytes, r.pos, ctx.m);
  }
  starts.push(end);
  const scratch = params + locals;
  const w = new ByteWriter();
  w.u32(declCount + (needsScratch ? 1 : 0)).bytes(bytes.subarray(start + lebLength(bytes, start), declEnd));
  if (needsScratch) w.u32(1).u8(ValType.i32);

  const weight = FRAME_HEADER_SLOTS + params + locals + stackBound;
  chargeDepth(w, ctx.depth, weight);
  let blockStart = true;
  let dead = false;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (blockStart) {
      let cost = 0;
      for (let j = i; j < ops.length; j++) {
        cost += instructionCost(ops[j]!);
        if (isTerminator(ops[j]!)) break;
      }
      // A block right after an unconditional branch is unreachable: nothing can jump into its middle.
      if (cost > 0 && !dead) chargeStatic(w, ctx.gas, cost);
      blockStart = false;
    }
    const unit = dynamicUnitCost(op);
    if (unit > 0) chargeDynamic(w, ctx.gas, scratch, unit);
    const isCall = op === Op.call || op === Op.callIndirect;
    if (isCall) w.u8(0x23).u32(ctx.depth).u8(0x21).u32(scratch);
    w.bytes(bytes.subarray(starts[i]!, starts[i + 1]!));
    // The callee raised the depth by its own weight; the caller restores its saved value.
    if (isCall) w.u8(0x20).u32(scratch).u8(0x24).u32(ctx.depth);
    if (isTerminator(op)) {
      blockStart = true;
      dead = op === Op.br || op === Op.brTable || op === Op.return || op === Op.unreachable;
    }
  }
  return w.toBytes();
}

/** Operand-stack contribution bound of one instruction: one slot, or a call's result count. */
function callResults(op: number, bytes: Uint8Array, after: number, m: ParsedModule): number {
  if (op !== Op.call) return 1;
  // Re-read the callee index: it is the LEB just before `after`.
  let p = after - 1;
  while (p > 0 && (bytes[p - 1]! & 0x80) !== 0) p--;
  const callee = new ByteReader(bytes, p, after).u32();
  const t = m.types[m.funcTypes[callee] ?? -1];
  return Math.max(1, t?.results.length ?? 1);
}

function lebLength(bytes: Uint8Array, at: number): number {
  let n = 1;
  while ((bytes[at + n - 1]! & 0x80) !== 0) n++;
  return n;
}

function trapIfNegative(w: ByteWriter, gas: number): void {
  // global.get gas; i64.const 0; i64.lt_s; if; unreachable; end
  w.u8(0x23).u32(gas).u8(0x42).u8(0).u8(0x53).u8(0x04).u8(0x40).u8(0x00).u8(0x0b);
}

function chargeStatic(w: ByteWriter, gas: number, cost: number): void {
  w.u8(0x23).u32(gas).u8(0x42).signed(cost).u8(0x7d).u8(0x24).u32(gas);
  trapIfNegative(w, gas);
}

function chargeDynamic(w: ByteWriter, gas: number, scratch: number, unit: number): void {
  // local.tee keeps the size operand on the stack for the instruction itself.
  w.u8(0x22).u32(scratch).u8(0x23).u32(gas).u8(0x20).u32(scratch).u8(0xad);
  w.u8(0x42).signed(unit).u8(0x7e).u8(0x7d).u8(0x24).u32(gas);
  trapIfNegative(w, gas);
}

function chargeDepth(w: ByteWriter, depth: number, weight: number): void {
  // depth += weight; if (depth >u MAX_STACK_SLOTS) unreachable
  w.u8(0x23).u32(depth).u8(0x41).signed(weight).u8(0x6a).u8(0x24).u32(depth);
  w.u8(0x23).u32(depth).u8(0x41).signed(MAX_STACK_SLOTS).u8(0x4b).u8(0x04).u8(0x40).u8(0x00).u8(0x0b);
}
