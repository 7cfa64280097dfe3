/**
 * Errors raised while compiling a model or checking a formula. Each carries a stable `code`
 * so the hub and the CLI can react without parsing messages.
 */

/** A model that parses but cannot be compiled (docs/language.md), or an anchor naming no state. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    message: string,
    readonly code: "MODEL_ERROR" | "UNKNOWN_STATE" = "MODEL_ERROR",
    /** 1-based position in the model text, when the error comes from one transition. */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line !== undefined && column !== undefined ? `${line}:${column}: ${message}` : message);
  }
}

/** A formula the checker refuses to evaluate: non-monotone fixed point or a relative path. */
export class FormulaError extends Error {
  override readonly name: string = "FormulaError";
  constructor(
    message: string,
    readonly code: "NON_MONOTONE" | "RELATIVE_PATH",
  ) {
    super(message);
  }
}

/** A fixed-point variable occurs under an odd number of negations (docs/language.md). */
export class MonotonicityError extends FormulaError {
  override readonly name = "MonotonicityError";
  constructor(readonly variable: string) {
    super(
      `fixed-point variable ${variable} occurs under an odd number of negations (the left side of "implies" counts as one); the formula is not monotone in ${variable}`,
      "NON_MONOTONE",
    );
  }
}

/** The check visited more states than its budget allows (docs/language.md: default 10^8). */
export class BudgetExceededError extends Error {
  override readonly name = "BudgetExceededError";
  readonly code = "BUDGET_EXCEEDED";
  constructor(readonly budget: number) {
    super(`model check exceeded its budget of ${budget} state visits`);
  }
}
