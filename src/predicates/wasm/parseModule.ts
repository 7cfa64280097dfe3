import { ByteReader } from "./ByteReader.js";
import { checkValType, decodeInstruction, isFloatOp, ValType } from "./decodeInstruction.js";
import { InvalidModuleError } from "./InvalidModuleError.js";

/** Exports the instrumenter adds; a module exporting anything under this prefix is refused. */
export const RESERVED_EXPORT_PREFIX = "__contract_hub_";

/** A function signature: parameter and result value types. */
export interface FuncType {
  params: number[];
  results: number[];
}

/** One section: its id and the byte range of its payload. */
export interface SectionRange {
  id: number;
  start: number;
  end: number;
}

/** One function body: `start..end` is the body after its size prefix. */
export interface FunctionBody {
  start: number;
  end: number;
}

/** What the instrumenter needs to know about a module that passed the hub's policy. */
export interface ParsedModule {
  bytes: Uint8Array;
  sections: SectionRange[];
  types: FuncType[];
  /** Type index of every function, imported ones first. */
  funcTypes: number[];
  importedFuncs: number;
  globalCount: number;
  memory: { min: number; max: number | undefined };
  bodies: FunctionBody[];
  /** The start function's index: the instrumenter exports it so the host runs it metered. */
  start: number | undefined;
}

/** Most elements a module's table may declare (its functions reachable by call_indirect). */
export const MAX_TABLE_ELEMENTS = 65_536;

/**
 * Most functions a module may define. The hub compiles every function before a module first
 * runs, outside the gas meter, and compiled memory and time follow the function count: on a
 * 2-core machine 10,000 small functions compiled in 40-80 ms and took 15 MB, 100,000 in
 * 0.4-0.7 s and 90 MB, and 600,000 took 17.8 s and 1.2 GB. A predicate compiled from Rust
 * defines a few thousand functions at most.
 */
export const MAX_FUNCTIONS = 10_000;

/** Section ids in the order the binary format requires (custom sections, id 0, may go anywhere). */
export const SECTION_ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

const ABORT_TYPE: FuncType = { params: [ValType.i32, ValType.i32, ValType.i32, ValType.i32], results: [] };
const ALLOC_TYPE: FuncType = { params: [ValType.i32], results: [ValType.i32] };
const EVALUATE_TYPE: FuncType = { params: [ValType.i32, ValType.i32], results: [ValType.i32] };

/**
 * Reads a module's sections and enforces the predicate policy: only `env.abort` imported,
 * one memory of at most `maxMemoryPages` pages, a table of at most `MAX_TABLE_ELEMENTS`, at most
 * `MAX_FUNCTIONS` functions, the ABI exports, and
 * no instruction or type outside MVP integer code + sign extension + bulk memory +
 * multi-value. Throws `InvalidModuleError` naming the first violation.
 */
export function parseModule(bytes: Uint8Array, maxMemoryPages: number): ParsedModule {
  const r = new ByteReader(bytes);
  const magic = r.take(4);
  if (magic[0] !== 0 || magic[1] !== 0x61 || magic[2] !== 0x73 || magic[3] !== 0x6d)
    throw new InvalidModuleError("malformed", "missing \\0asm magic");
  const version = r.take(4);
  if (version[0] !== 1 || version[1] !== 0 || version[2] !== 0 || version[3] !== 0)
    throw new InvalidModuleError("malformed", "unsupported binary version (components are not modules)");

  const m: ParsedModule = {
    bytes,
    sections: [],
    types: [],
    funcTypes: [],
    importedFuncs: 0,
    globalCount: 0,
    memory: { min: 0, max: undefined },
    bodies: [],
    start: undefined,
  };
  let hasMemory = false;
  let lastRank = -1;
  const exports = new Map<string, { kind: number; index: number }>();
  while (!r.done) {
    const id = r.u8();
    const size = r.u32();
    const start = r.pos;
    r.take(size);
    m.sections.push({ id, start, end: r.pos });
    if (id === 0) continue;
    const rank = SECTION_ORDER.indexOf(id);
    if (rank < 0) throw new InvalidModuleError("malformed", `unknown section id ${id}`);
    if (rank <= lastRank) throw new InvalidModuleError("malformed", `section ${id} out of order or repeated`);
    lastRank = rank;
    const s = new ByteReader(bytes, start, r.pos);
    switch (id) {
      case 1:
        readTypes(s, m);
        break;
      case 2:
        readImports(s, m);
        break;
      case 3:
        for (let n = functionCount(s.u32()); n > 0; n--) m.funcTypes.push(typeIndex(m, s.u32()));
        break;
      case 4:
        readTables(s);
        break;
      case 5:
        hasMemory = readMemory(s, m, maxMemoryPages);
        break;
      case 13:
        throw new InvalidModuleError("exceptions", "tag section");
      case 6:
        readGlobals(s, m);
        break;
      case 7:
        readExports(s, exports);
        break;
      case 8:
        // Run during instantiation it would escape the gas budget; the instrumenter turns it
        // into an export the host calls, metered, before alloc (compilers such as
        // AssemblyScript initialise their heap there).
        m.start = s.u32();
        break;
      case 10:
        readCode(s, m);
        break;
      default:
        continue; // element, data count and data segments pass through; WebAssembly.validate checks them
    }
    if (!s.done) throw new InvalidModuleError("malformed", `section ${id} has trailing bytes`);
  }
  if (m.bodies.length !== m.funcTypes.length - m.importedFuncs)
    throw new InvalidModuleError("malformed", "function and code section counts differ");
  checkAbiExports(m, exports, hasMemory);
  return m;
}

function typeIndex(m: ParsedModule, i: number): number {
  if (i >= m.types.length) throw new InvalidModuleError("malformed", `type index ${i} out of range`);
  return i;
}

function readTypes(s: ByteReader, m: ParsedModule): void {
  for (let n = s.u32(); n > 0; n--) {
    const form = s.u8();
    if (form !== 0x60) throw new InvalidModuleError("GC", `type form 0x${form.toString(16)}`);
    const sig: FuncType = { params: [], results: [] };
    for (const list of [sig.params, sig.results]) {
      for (let k = s.u32(); k > 0; k--) {
        const t = s.u8();
        checkValType(t, `function type ${m.types.length}`);
        list.push(t);
      }
    }
    m.types.push(sig);
  }
}

function readImports(s: ByteReader, m: ParsedModule): void {
  for (let n = s.u32(); n > 0; n--) {
    const module = s.name();
    const field = s.name();
    const kind = s.u8();
    const what = `${module}.${field}`;
    if (kind === 4) throw new InvalidModuleError("exceptions", `tag import ${what}`);
    if (kind !== 0 || module !== "env" || field !== "abort")
      throw new InvalidModuleError("imports", `import ${what} is not allowed (only env.abort)`);
    const t = typeIndex(m, s.u32());
    if (!sameType(m.types[t]!, ABORT_TYPE))
      throw new InvalidModuleError("imports", "env.abort must have type (i32, i32, i32, i32) -> ()");
    m.funcTypes.push(t);
    m.importedFuncs++;
  }
}

function readLimits(s: ByteReader, what: string): { min: number; max: number | undefined } {
  const flags = s.u8();
  if (flags === 2 || flags === 3) throw new InvalidModuleError("threads", `shared ${what}`);
  if (flags > 3) throw new InvalidModuleError("memory64", `${what} limits flags 0x${flags.toString(16)}`);
  const min = s.u32();
  return { min, max: flags === 1 ? s.u32() : undefined };
}

function readTables(s: ByteReader): void {
  const n = s.u32();
  if (n > 1) throw new InvalidModuleError("reference types", "more than one table");
  if (n === 1) {
    const t = s.u8();
    if (t !== ValType.funcref) throw new InvalidModuleError("reference types", `table of type 0x${t.toString(16)}`);
    // V8 allocates the declared minimum on the worker's heap at instantiation, unmetered; ten
    // million entries overran the heap limit in one allocation and aborted the whole process.
    // The table cannot grow (table.grow is refused), so the minimum is all it will ever hold.
    const { min } = readLimits(s, "table");
    if (min > MAX_TABLE_ELEMENTS)
      throw new InvalidModuleError("table size", `table declares ${min} elements, the limit is ${MAX_TABLE_ELEMENTS}`);
  }
}

function readMemory(s: ByteReader, m: ParsedModule, maxPages: number): boolean {
  const n = s.u32();
  if (n > 1) throw new InvalidModuleError("multi-memory", "more than one memory");
  if (n === 0) return false;
  m.memory = readLimits(s, "memory");
  const declared = Math.max(m.memory.min, m.memory.max ?? 0);
  if (declared > maxPages)
    throw new InvalidModuleError("memory pages", `memory declares ${declared} pages, the limit is ${maxPages}`);
  return true;
}

function readGlobals(s: ByteReader, m: ParsedModule): void {
  for (let n = s.u32(); n > 0; n--) {
    checkValType(s.u8(), `global ${m.globalCount}`);
    s.u8(); // mutability
    for (;;) {
      const at = s.pos;
      const op = decodeInstruction(s);
      if (op === 0x0b) break;
      if (op !== 0x41 && op !== 0x42 && op !== 0x23)
        throw new InvalidModuleError("extended constant expressions", `opcode 0x${op.toString(16)} at offset ${at}`);
    }
    m.globalCount++;
  }
}

function readExports(s: ByteReader, exports: Map<string, { kind: number; index: number }>): void {
  for (let n = s.u32(); n > 0; n--) {
    const name = s.name();
    const kind = s.u8();
    const index = s.u32();
    if (kind === 4) throw new InvalidModuleError("exceptions", `tag export ${name}`);
    if (name.startsWith(RESERVED_EXPORT_PREFIX))
      throw new InvalidModuleError(
        "reserved export",
        `export names starting with ${RESERVED_EXPORT_PREFIX} are reserved`,
      );
    exports.set(name, { kind, index });
  }
}

/** Checked on the function and code sections' counts, before either is read any further. */
function functionCount(n: number): number {
  if (n > MAX_FUNCTIONS)
    throw new InvalidModuleError("function count", `module defines ${n} functions, the limit is ${MAX_FUNCTIONS}`);
  return n;
}

function readCode(s: ByteReader, m: ParsedModule): void {
  const count = functionCount(s.u32());
  for (let f = 0; f < count; f++) {
    const size = s.u32();
    const body = new ByteReader(s.bytes, s.pos, s.pos + size);
    s.take(size);
    const funcIndex = m.importedFuncs + f;
    for (let n = body.u32(); n > 0; n--) {
      body.u32();
      checkValType(body.u8(), `locals of function ${funcIndex}`);
    }
    let last = -1;
    while (!body.done) {
      const at = body.pos;
      last = decodeInstruction(body);
      if (isFloatOp(last))
        throw new InvalidModuleError(
          "floating point",
          `opcode 0x${last.toString(16)} in function ${funcIndex} at offset ${at}`,
        );
    }
    if (last !== 0x0b) throw new InvalidModuleError("malformed", `function ${funcIndex} does not end with end`);
    m.bodies.push({ start: body.end - size, end: body.end });
  }
}

function checkAbiExports(m: ParsedModule, exports: Map<string, { kind: number; index: number }>, hasMemory: boolean) {
  const memory = exports.get("memory");
  if (memory?.kind !== 2 || !hasMemory) throw new InvalidModuleError("exports", "missing export memory");
  for (const [name, type] of [
    ["alloc", ALLOC_TYPE],
    ["evaluate", EVALUATE_TYPE],
  ] as const) {
    const e = exports.get(name);
    if (e?.kind !== 0) throw new InvalidModuleError("exports", `missing export ${name}`);
    const t = m.funcTypes[e.index];
    if (t === undefined || !sameType(m.types[t]!, type))
      throw new InvalidModuleError("exports", `export ${name} has the wrong signature`);
  }
}

function sameType(a: FuncType, b: FuncType): boolean {
  return a.params.join() === b.params.join() && a.results.join() === b.results.join();
}
