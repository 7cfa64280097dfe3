import { FC, Op } from "./decodeInstruction.js";

/**
 * The gas schedule. Every executed instruction costs `instruction` unless listed; the
 * structural markers that compile to no machine code (block, loop, else, end, nop) are
 * free. Dynamic costs are charged before the instruction runs, from its operand.
 */
export const GasCosts = {
  instruction: 1,
  memoryAccess: 2,
  divRem: 4,
  call: 10,
  callIndirect: 15,
  memoryGrow: 100,
  /** Per page requested by memory.grow, whether or not the growth succeeds. */
  memoryGrowPerPage: 4096,
  bulkMemory: 10,
  /** Per byte (per element for table.copy/init) of memory.copy/fill/init. */
  bulkPerByte: 1,
} as const;

/** Static gas cost of one instruction (the `FC + n` convention of `decodeInstruction`). */
export function instructionCost(op: number): number {
  switch (op) {
    case Op.block:
    case Op.loop:
    case Op.else:
    case Op.end:
    case 0x01: // nop
      return 0;
    case Op.call:
      return GasCosts.call;
    case Op.callIndirect:
      return GasCosts.callIndirect;
    case Op.memoryGrow:
      return GasCosts.memoryGrow;
    case Op.memoryInit:
    case Op.memoryCopy:
    case Op.memoryFill:
    case Op.tableInit:
    case Op.tableCopy:
    case FC + 9: // data.drop
    case FC + 13: // elem.drop
      return GasCosts.bulkMemory;
  }
  if (op >= 0x28 && op <= 0x3e) return GasCosts.memoryAccess;
  if ((op >= 0x6d && op <= 0x70) || (op >= 0x7f && op <= 0x82)) return GasCosts.divRem;
  return GasCosts.instruction;
}

/** Per-unit dynamic cost of an instruction whose top operand is a size, or 0 if it has none. */
export function dynamicUnitCost(op: number): number {
  if (op === Op.memoryGrow) return GasCosts.memoryGrowPerPage;
  if (op === Op.memoryInit || op === Op.memoryCopy || op === Op.memoryFill) return GasCosts.bulkPerByte;
  if (op === Op.tableInit || op === Op.tableCopy) return GasCosts.bulkPerByte;
  return 0;
}
