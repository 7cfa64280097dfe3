/**
 * The explorer's entry: hash routes, the navigation (Templates and Synthesize appear only when
 * this hub answers those routes), and the live indicator. Read-only: no key ever enters the page.
 */
import "./bufferShim.js";
import { get, optional } from "./api.js";
import { h } from "./dom.js";
import { liveIndicator } from "./liveIndicator.js";
import { contractPage } from "./pages/contractPage.js";
import { contractsPage } from "./pages/contractsPage.js";
import { synthesizePage } from "./pages/synthesizePage.js";
import { templatePage, templatesPage } from "./pages/templatesPage.js";

const app = document.getElementById("app")!;
const nav = document.getElementById("nav")!;
const setLive = liveIndicator(document.getElementById("live")!);
let leave: (() => void) | null = null;

/** The hash's path decoded; a malformed escape (`#/c/%zz`, typed or pasted) is kept as typed rather than stopping the page. */
function decodeHashPath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function route(): void {
  leave?.();
  leave = null;
  // Split before decoding: an escaped "?" belongs to the id typed, not to the query.
  const raw = location.hash.replace(/^#/, "");
  const at = raw.indexOf("?");
  const path = decodeHashPath(at < 0 ? raw : raw.slice(0, at)) || "/";
  const params = new URLSearchParams(at < 0 ? "" : raw.slice(at + 1));
  let m: RegExpExecArray | null;
  if ((m = /^\/c\/(.+)$/.exec(path))) leave = contractPage(app, m[1]!, setLive);
  else if (path === "/templates") void templatesPage(app);
  else if ((m = /^\/templates\/(.+)$/.exec(path))) void templatePage(app, m[1]!);
  else if (path === "/synthesize") synthesizePage(app);
  else void contractsPage(app, Number(params.get("offset") ?? 0) || 0);
  for (const a of nav.querySelectorAll("a")) a.classList.toggle("active", a.getAttribute("href") === `#${path}`);
}

/** Adds the optional sections this hub offers: templates when `GET /templates` answers, synthesis when the route is published. */
async function probe(): Promise<void> {
  const templates = await optional<unknown[]>("/templates").catch(() => null);
  if (templates !== null) nav.append(h("a", { href: "#/templates" }, "Templates"));
  const api = await get<{ paths?: Record<string, unknown> }>("/openapi.json").catch(() => null);
  if (api?.paths?.["/contracts/synthesize"]) nav.append(h("a", { href: "#/synthesize" }, "Synthesize"));
}

window.addEventListener("hashchange", route);
route();
void probe();
