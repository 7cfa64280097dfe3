/** The contract's assets and the balances held, shown only when the hub serves assets. */
import { contractPath, optional } from "../../api.js";
import { h, mount, scrollTable } from "../../dom.js";
import type { ContractPageContext, Panel } from "./ContractPageContext.js";

interface AssetsView {
  assets: { asset_id: string; quantity: number; divisibility: number }[];
  balances: { asset_id: string; issuer: string; amount: number }[];
  /** How many each list holds in all: the hub answers the first page of each (1,000 rows). */
  assets_total?: number;
  balances_total?: number;
}

/** Says that a list shows the first `shown` of `total` rows, when the page did not hold them all. */
function pageNote(shown: number, total: number | undefined, what: string): HTMLElement[] {
  if (total === undefined || total <= shown) return [];
  return [
    h(
      "p",
      { class: "muted page-note", "data-shown": String(shown), "data-total": String(total) },
      `Showing the first ${shown.toLocaleString("en")} of ${total.toLocaleString("en")} ${what}.`,
    ),
  ];
}

export function assetsPanel(ctx: ContractPageContext): Panel {
  const root = h("section", { id: "assets", hidden: true });
  return {
    root,
    async refresh() {
      const a = await optional<AssetsView>(contractPath(ctx.id, "/assets"));
      if (ctx.stopped || a === null) return;
      root.hidden = false;
      mount(
        root,
        h("h2", {}, "Assets"),
        a.assets.length === 0
          ? h("p", { class: "muted" }, "No assets created in this contract.")
          : scrollTable(
              { class: "list" },
              h("thead", {}, h("tr", {}, h("th", {}, "Asset"), h("th", {}, "Quantity"), h("th", {}, "Divisibility"))),
              h(
                "tbody",
                {},
                ...a.assets.map((x) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, x.asset_id),
                    h("td", { class: "num" }, x.quantity),
                    h("td", { class: "num" }, x.divisibility),
                  ),
                ),
              ),
            ),
        ...pageNote(a.assets.length, a.assets_total, "assets"),
        h("h3", {}, "Balances held"),
        a.balances.length === 0
          ? h("p", { class: "muted" }, "None.")
          : scrollTable(
              { class: "list" },
              h("thead", {}, h("tr", {}, h("th", {}, "Asset"), h("th", {}, "Issuer"), h("th", {}, "Amount"))),
              h(
                "tbody",
                {},
                ...a.balances.map((x) =>
                  h("tr", {}, h("td", {}, x.asset_id), h("td", {}, x.issuer), h("td", { class: "num" }, x.amount)),
                ),
              ),
            ),
        ...pageNote(a.balances.length, a.balances_total, "balances"),
      );
    },
  };
}
