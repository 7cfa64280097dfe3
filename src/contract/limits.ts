/** Configurable limits (docs/security.md); the contract engine reads the ones it enforces from here. */
export interface Limits {
  /** Request body bytes (push has its own). */
  bodyBytes: number;
  pushBodyBytes: number;
  commitsPerPush: number;
  operationsPerCommit: number;
  signaturesPerCommit: number;
  attestationsPerCommit: number;
  /** Maximum nesting of arrays and objects in any JSON value. */
  jsonDepth: number;
  /** Maximum arrays and objects in one request body or WebSocket frame. */
  jsonContainers: number;
  rpcBatch: number;
  ruleTextBytes: number;
  modelTextBytes: number;
  formulaDepth: number;
  modelStates: number;
  modelCheckBudget: number;
  wasmMemoryPages: number;
  /** Open proposals per contract (past it: 429). */
  openProposals: number;
  /** Seconds until an open proposal expires. */
  proposalLifetimeSeconds: number;
}

/** The defaults of docs/security.md. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  bodyBytes: 1024 * 1024,
  pushBodyBytes: 16 * 1024 * 1024,
  commitsPerPush: 10_000,
  operationsPerCommit: 64,
  signaturesPerCommit: 32,
  attestationsPerCommit: 16,
  jsonDepth: 64,
  jsonContainers: 1_000_000,
  rpcBatch: 100,
  ruleTextBytes: 64 * 1024,
  modelTextBytes: 1024 * 1024,
  formulaDepth: 256,
  modelStates: 100_000,
  modelCheckBudget: 100_000_000,
  wasmMemoryPages: 256,
  openProposals: 100,
  proposalLifetimeSeconds: 7 * 24 * 3600,
});

/** The defaults with some limits overridden. */
export function withLimits(overrides: Partial<Limits> = {}): Limits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
