/** Paste a rejected commit's error body: the explanation is written out and drawn on the diagram. */
import { h, mount } from "../../dom.js";
import { type Explanation, explanationMarks, readExplanation, renderExplanation } from "../../explain.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

export function explainPanel(ctx: ContractPageContext): Panel {
  const out = h("div", { id: "explain-out" });
  const paste = h("textarea", {
    id: "explain-input",
    rows: 5,
    placeholder:
      'Paste a rejected commit\'s error body, e.g. {"error": "...", "code": "VALIDATION_FAILED", "details": {...}}',
  });
  const explain = (text: string) => {
    let ex: Explanation;
    try {
      ex = readExplanation(text);
    } catch (err) {
      mount(out, h("p", { class: "error" }, `Not an error body: ${(err as Error).message}`));
      return;
    }
    // Pasted text may be JSON of any shape (a hand-edited body, another program's error): one
    // the explanation cannot read is said so, instead of failing in the click handler.
    let shown: HTMLElement;
    let marks: ReturnType<typeof explanationMarks> | undefined;
    try {
      shown = renderExplanation(ex);
      marks = ctx.view ? explanationMarks(ctx.view, ex) : undefined;
    } catch (err) {
      mount(out, h("p", { class: "error" }, `Not an error body the hub answers: ${(err as Error).message}`));
      ctx.mark(undefined);
      return;
    }
    mount(out, shown);
    ctx.mark(marks);
  };
  const clear = () => {
    mount(out);
    ctx.mark(undefined);
  };
  return {
    root: h(
      "section",
      { id: "explain" },
      h("h2", {}, "Explain a rejected commit"),
      paste,
      h(
        "p",
        {},
        h("button", { type: "button", id: "explain-button", onclick: () => explain(paste.value) }, "Explain"),
        " ",
        h("button", { type: "button", onclick: clear }, "Clear"),
      ),
      out,
    ),
  };
}
