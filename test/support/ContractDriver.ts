import { buildWireCommit, type CommitSigner } from "../../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../../src/contract/Commit.js";
import {
  acceptCommit,
  acceptGenesis,
  applyDelta,
  type ContractState,
  type EngineContext,
  type GenesisInput,
  genesisData,
  type StoredCommit,
} from "../../src/contract/engine.js";
import type { Party } from "./Party.js";

/** Drives one contract through the engine in memory, keeping the log like a store would. */
export class ContractDriver {
  readonly log: StoredCommit[] = [];
  state!: ContractState;
  clock = 1_700_000_000;

  private constructor(readonly contractId: string) {}

  static async create(
    contractId: string,
    input: GenesisInput,
    ctx: Partial<EngineContext> = {},
  ): Promise<ContractDriver> {
    const d = new ContractDriver(contractId);
    const commit = buildWireCommit(contractId, null, genesisData(input));
    const { state, stored } = await acceptGenesis(contractId, commit, { timestamp: d.clock, ...ctx });
    d.state = state;
    d.log.push(stored);
    return d;
  }

  /** Builds a commit on the current head, signed by `signers` under their `/users/<name>.id` paths unless `as` is given. */
  build(data: Operation[], signers: Array<Party | CommitSigner> = []): WireCommit {
    const list = signers.map((s) => ("seed" in s ? { key: s.seed, as: `/users/${s.name}.id` } : s));
    return buildWireCommit(this.contractId, this.state.head, data, list);
  }

  context(extra: Partial<EngineContext> = {}): EngineContext {
    return {
      timestamp: ++this.clock,
      readLog: () => this.log,
      commitIndex: (hash) => {
        const i = this.log.findIndex((c) => c.hash === hash);
        return i < 0 ? null : i;
      },
      ...extra,
    };
  }

  /** Validates and appends; throws the engine's ContractError on rejection. */
  async commit(data: Operation[], signers: Array<Party | CommitSigner> = [], extra: Partial<EngineContext> = {}) {
    return this.append(this.build(data, signers), extra);
  }

  async append(commit: unknown, extra: Partial<EngineContext> = {}): Promise<StoredCommit> {
    const { stored, delta } = await acceptCommit(this.state, commit, this.context(extra));
    applyDelta(this.state, delta);
    this.log.push(stored);
    return stored;
  }
}

/** Shorthands for operations. */
export const op = {
  post: (path: string, value: unknown): Operation => ({ method: "post", path, value }),
  action: (label: string): Operation => ({ method: "action", value: label }),
  rule: (path: string, value: string): Operation => ({ method: "rule", path, value }),
  model: (value: string): Operation => ({ method: "model", path: "/model/default.modality", value }),
};
