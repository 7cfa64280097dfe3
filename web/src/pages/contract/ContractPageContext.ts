/**
 * What the contract page's panels share: the contract and its state as last fetched, the model
 * read from it, the marks drawn on the diagram, and the page's update queue. Each panel is a
 * small file that receives this object; adding a panel is a new file and one line in
 * ../contractPage.ts.
 */
import type { DiagramMarks, ValidActionLike } from "../../diagram.js";
import type { ModelView } from "../../modelView.js";

export interface StateView {
  current_state: string;
  current_states?: string[];
  valid_actions: (ValidActionLike & { required_signer: string })[];
  commit_count: number;
  head: string;
}

export interface Contract {
  contract_id: string;
  model: string | null;
  rules: string[];
  state: StateView;
  created_at: number;
}

export type PathMarks = DiagramMarks["path"] | undefined;

export interface ContractPageContext {
  readonly id: string;
  /** The contract as last fetched; null until the first answer. */
  contract: Contract | null;
  /** The state as last fetched or pushed over the WebSocket. */
  state: StateView | null;
  /** The model read by the explorer; null when the contract has none or it cannot be read. */
  view: ModelView | null;
  /** The path drawn on the diagram (a rejected commit's or a counterexample's). */
  marks: PathMarks;
  /** True once the user left the page: late answers are dropped. */
  readonly stopped: boolean;
  /** The current states as the model view's state indices. */
  current(): number[];
  /** Sets the marks and redraws the diagram. */
  mark(marks: PathMarks): void;
  /** Queues an update after the ones already queued, so a slow answer never overwrites a newer one. */
  enqueue(update: () => Promise<void>): void;
}

/** One section of the page. */
export interface Panel {
  /** Mounted once, in the page's order. */
  readonly root: HTMLElement;
  /** Redraws from the context alone (no fetch): after the contract loads and on each live state. */
  draw?(): void;
  /** Fetches what the panel shows and draws it: after the first load and after each new commit. */
  refresh?(): Promise<void>;
}
