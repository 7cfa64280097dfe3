/**
 * `#/c/<id>`: one contract. The model as a diagram with the current states and the valid next
 * actions, explanations of rejected commits drawn on it, the rules checked at the current
 * states, the data state, the paged log and the assets; kept current over the WebSocket.
 *
 * This file only loads the contract, keeps the shared context and drives the panels; each
 * section is a panel in ./contract/. A new section is a new panel file and one entry in
 * `panels` below.
 */
import { ApiError, contractPath, get } from "../api.js";
import { h, mount } from "../dom.js";
import { type LiveSubscription, subscribeCommits } from "../live.js";
import type { ShowLive } from "../liveIndicator.js";
import { modelView, statesNamed } from "../modelView.js";
import { oncePerFrame } from "../oncePerFrame.js";
import { assetsPanel } from "./contract/assetsPanel.js";
import type { Contract, ContractPageContext, Panel, StateView } from "./contract/ContractPageContext.js";
import { checkpointPanel } from "./contract/checkpointPanel.js";
import { customPredicatesPanel } from "./contract/customPredicatesPanel.js";
import { dataPanel } from "./contract/dataPanel.js";
import { explainPanel } from "./contract/explainPanel.js";
import { logPanel } from "./contract/logPanel.js";
import { metaPanel } from "./contract/metaPanel.js";
import { modelPanel } from "./contract/modelPanel.js";
import { proposalsPanel } from "./contract/proposalsPanel.js";
import { rulesPanel } from "./contract/rulesPanel.js";

export function contractPage(app: HTMLElement, id: string, setLive: ShowLive): () => void {
  let stopped = false;
  let live: LiveSubscription | null = null;
  // Updates run one after another, so a slow answer never overwrites a newer one.
  let queue: Promise<void> = Promise.resolve();

  const ctx: ContractPageContext = {
    id,
    contract: null,
    state: null,
    view: null,
    marks: undefined,
    get stopped() {
      return stopped;
    },
    current: () =>
      ctx.view && ctx.state
        ? statesNamed(ctx.view, ctx.state.current_states ?? ctx.state.current_state.split("|"))
        : [],
    mark: (marks) => {
      ctx.marks = marks;
      model.draw?.();
    },
    enqueue: (update) => {
      queue = queue.then(update).catch((err) => showError(err));
    },
  };

  const meta = metaPanel(ctx);
  const model = modelPanel(ctx);
  const proposals = proposalsPanel(ctx);
  /** The page's sections, in page order. */
  const panels: Panel[] = [
    meta,
    model,
    customPredicatesPanel(ctx),
    proposals,
    explainPanel(ctx),
    rulesPanel(ctx),
    dataPanel(ctx),
    logPanel(ctx),
    assetsPanel(ctx),
    checkpointPanel(ctx),
  ];
  mount(app, h("h1", {}, "Contract ", h("code", {}, id)), ...panels.map((p) => p.root));

  const errorText = (err: unknown) =>
    err instanceof ApiError && err.status === 404
      ? `No contract "${id}" is visible here (it does not exist, or it is private).`
      : err instanceof Error
        ? err.message
        : String(err);
  const showError = (err: unknown) => {
    if (stopped) return;
    meta.showError(errorText(err));
  };
  const notLoaded = (err: unknown) =>
    mount(
      app,
      h("h1", {}, "Contract ", h("code", {}, id)),
      h(
        "p",
        { class: "error", id: "contract-error", "data-code": err instanceof ApiError ? err.code : null },
        errorText(err),
      ),
      h("p", {}, h("a", { href: "#/" }, "← all contracts")),
    );
  /** Whole-page redraws so far, in `#app[data-draws]`: a burst of events must not cost one each. */
  let draws = 0;
  const drawAll = () => {
    app.dataset.draws = String(++draws);
    for (const p of panels) p.draw?.();
  };
  /** The live redraw: the events of one frame (a push is hundreds of them) draw the newest state once. */
  const redraw = oncePerFrame(drawAll);
  // One panel's failed request (a 429 on a long pull, a 503 during a storage fault) is shown,
  // but does not stop the others, nor the subscription that follows the first load: the next
  // commit refreshes every panel again.
  const refreshAll = async () => {
    const results = await Promise.allSettled(panels.map((p) => p.refresh?.()));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) showError(failed.reason);
  };
  const loadContract = async () => {
    const contract = await get<Contract>(contractPath(id));
    // Marks name the states and transitions of the model they were made on (by index): after a
    // MODEL commit they would land on other edges of the new one, so they are dropped.
    if (ctx.contract !== null && ctx.contract.model !== contract.model) ctx.marks = undefined;
    ctx.contract = contract;
    // Commit events that arrived while this read was answered may have drawn a newer state.
    if (ctx.state === null || contract.state.commit_count >= ctx.state.commit_count) ctx.state = contract.state;
    try {
      ctx.view = contract.model === null ? null : modelView(contract.model);
    } catch {
      ctx.view = null;
    }
  };

  /**
   * Queues `update` unless one queued here has not started yet; a call meanwhile folds into that
   * one. A push of hundreds of commits is hundreds of events: each panel then has at most one
   * refresh running and one waiting (which reads the newest state when it starts), instead of
   * one full refresh per commit queued behind a slow answer.
   */
  const folded = (update: () => Promise<void>) => {
    let waiting = false;
    return () => {
      if (waiting) return;
      waiting = true;
      ctx.enqueue(() => {
        waiting = false;
        return update();
      });
    };
  };
  /** Set by a MODEL or RULE commit: the next catch-up reads the contract (its model and rules) again. */
  let reloadContract = false;
  const catchUp = folded(async () => {
    if (reloadContract) {
      reloadContract = false;
      try {
        await loadContract();
      } catch (err) {
        reloadContract = true; // the next catch-up tries again
        throw err;
      }
      drawAll();
    }
    await refreshAll();
  });
  const proposalsCatchUp = folded(() => proposals.refresh());

  ctx.enqueue(async () => {
    try {
      await loadContract();
    } catch (err) {
      // Nothing to show: the message alone, not a page of empty sections for a contract that is not there.
      if (!stopped) notLoaded(err);
      return;
    }
    if (stopped) return;
    drawAll();
    await refreshAll();
    if (stopped) return;
    live = subscribeCommits(
      id,
      ctx.state!.commit_count,
      (n) => {
        // The event carries the new state: redraw on the next frame, then catch the panels up.
        ctx.state = n.state as StateView;
        redraw.request();
        if (n.commit.method === "model" || n.commit.method === "rule") reloadContract = true;
        catchUp();
      },
      (status, retryInMs) => setLive(status, retryInMs, () => live?.retryNow()),
      proposalsCatchUp,
    );
  });

  return () => {
    stopped = true;
    redraw.cancel();
    live?.stop();
    setLive(null);
    delete app.dataset.draws;
  };
}
