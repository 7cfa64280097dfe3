import type { Formula, RuleDecl } from "../lang/ast.js";
import type { Lts } from "../lang/Lts.js";

/** A rule accumulated by the contract, with the log position its anchor names. */
export interface RuleRecord {
  /** Source text as committed. */
  text: string;
  /** `/rules/<name>.modality`, or null for a genesis rule. */
  path: string | null;
  decl: RuleDecl;
  formula: Formula;
  /** Log index of the anchor commit: the rule is evaluated at the states right after it. */
  anchorIndex: number;
}

/** The governing model: its text, and the compiled transition system. */
export interface GoverningModel {
  text: string;
  lts: Lts;
}

/**
 * The state of one contract, derived from its log (docs/language.md). Mutable: the engine's
 * `acceptCommit` never changes it and returns a delta; `applyDelta` moves it forward, and
 * `clone()` gives a working copy for a batch.
 */
export class ContractState {
  contractId: string;
  owner: string;
  createdAt: number;
  head: string;
  /** Number of commits, genesis included (= the next commit's index). */
  length: number;
  /**
   * The head commit's stored timestamp: the hub stamps the next commit no earlier than this
   * (docs/protocol.md, "Commit timestamps"). Not in the snapshot text; read from the head.
   */
  headTimestamp: number;
  data: Map<string, unknown>;
  model: GoverningModel | null;
  /** Current model states (sorted indices into `model.lts`); empty without a model. */
  current: number[];
  rules: RuleRecord[];

  constructor(init: {
    contractId: string;
    owner: string;
    createdAt: number;
    head: string;
    length: number;
    /** Defaults to `createdAt` (the genesis's stamp). */
    headTimestamp?: number;
    data: Map<string, unknown>;
    model: GoverningModel | null;
    current: number[];
    rules: RuleRecord[];
  }) {
    this.contractId = init.contractId;
    this.owner = init.owner;
    this.createdAt = init.createdAt;
    this.head = init.head;
    this.length = init.length;
    this.headTimestamp = init.headTimestamp ?? init.createdAt;
    this.data = init.data;
    this.model = init.model;
    this.current = init.current;
    this.rules = init.rules;
  }

  /** A copy that can move forward independently (data map copied; models and rules shared, they are immutable). */
  clone(): ContractState {
    return new ContractState({
      contractId: this.contractId,
      owner: this.owner,
      createdAt: this.createdAt,
      head: this.head,
      length: this.length,
      headTimestamp: this.headTimestamp,
      data: new Map(this.data),
      model: this.model,
      current: [...this.current],
      rules: [...this.rules],
    });
  }

  /** `current_state` as the spec shows it: the one state's name, or names joined by `|`, or `""` without a model. */
  get currentStateName(): string {
    return this.currentStateNames.join("|");
  }

  /** Display names of the current states, sorted. */
  get currentStateNames(): string[] {
    if (this.model === null) return [];
    const names = this.current.map((s) => this.model!.lts.displayNames[s]!);
    return names.sort();
  }
}
