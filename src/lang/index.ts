/**
 * The contract language for tools (`contract-hub/language`): parse and print models, formulas
 * and rules, compile a model, model-check a formula, draw a model.
 */
export type { Formula, FormulaDecl, ModelDecl, Part, Pos, Property, RuleDecl, SourceFile, Transition } from "./ast.js";
export { type CheckOptions, type CheckResult, checkAt, checkAtInitial } from "./check.js";
export { BudgetExceededError, FormulaError, ModelError, MonotonicityError } from "./checkErrors.js";
export type { Counterexample } from "./counterexample.js";
export { type GraphOptions, toDot, toMermaid } from "./graph.js";
export { compileModel, type Lts, type ModelWarning } from "./Lts.js";
export { ParseError, parseFormula, parseModel, parseModels, parseRule, parseSource } from "./parser.js";
export { printFormula, printModel, printProperty, printRule, printSource } from "./printer.js";
