/**
 * The import rules of docs/architecture.md, checked by `npm run lint:imports` (part of
 * `npm test`). Each directory of src/ is a layer that may import only the layers listed
 * beside it; a new directory is one line in LAYERS. Code outside src/hub reaches the core
 * only through its public files (PUBLIC_HUB). No file circle anywhere.
 */

/** layer → the layers it may import (besides itself). Lower layers never import higher ones. */
const LAYERS = {
  lang: [],
  contract: ["lang"],
  predicates: ["contract", "lang"],
  tlog: ["contract"],
  store: ["tlog", "contract", "lang"],
  api: ["contract", "lang"],
  templates: ["api", "contract", "lang"],
  synthesis: ["templates", "api", "contract", "lang"],
  auth: ["api", "store", "contract"],
  hub: ["api", "store", "tlog", "predicates", "synthesis", "templates", "contract", "lang"],
  client: ["api", "auth", "tlog", "contract", "lang"],
  witness: ["tlog", "contract"],
  http: ["hub", "api", "auth", "store", "synthesis", "templates", "contract", "lang"],
  cli: [
    "http",
    "witness",
    "hub",
    "client",
    "api",
    "auth",
    "store",
    "tlog",
    "predicates",
    "synthesis",
    "templates",
    "contract",
    "lang",
  ],
};

/** Layers with no domain (small utilities such as token buckets) that every layer may import; they import nothing. */
const SHARED = ["lib"];

/** The files of src/hub other layers may import: the class, its surface, the store audit. */
const PUBLIC_HUB = ["Hub", "HubApi", "audit"];

const layerRules = [
  ...Object.entries(LAYERS).map(([layer, allowed]) => ({
    name: `layer-${layer}`,
    comment: `src/${layer} may import only ${[...allowed, ...SHARED].join(", ")}`,
    severity: "error",
    from: { path: `^src/${layer}/` },
    to: { path: "^src/", pathNot: `^src/(${[layer, ...allowed, ...SHARED].join("|")})/` },
  })),
  ...SHARED.map((layer) => ({
    name: `layer-${layer}`,
    comment: `src/${layer} imports nothing else in src`,
    severity: "error",
    from: { path: `^src/${layer}/` },
    to: { path: "^src/", pathNot: `^src/${layer}/` },
  })),
];

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A file circle means an operation reaches back into its caller: pass it what it needs instead.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "declared-layer",
      comment: "Every directory of src/ is a layer declared in LAYERS (.dependency-cruiser.cjs).",
      severity: "error",
      from: { path: "^src/", pathNot: `^src/(${[...Object.keys(LAYERS), ...SHARED].join("|")})/` },
      to: {},
    },
    ...layerRules,
    {
      name: "hub-internals",
      comment: `Outside src/hub, only ${PUBLIC_HUB.join(", ")} of the core may be imported.`,
      severity: "error",
      from: { path: "^(src|web|bench)/", pathNot: "^src/hub/" },
      to: { path: "^src/hub/", pathNot: `^src/hub/(${PUBLIC_HUB.join("|")})\\.ts$` },
    },
    {
      name: "store-interface",
      comment:
        "Above the store, code depends on the Store interface; only the CLI (which opens one) names an implementation.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(store|cli)/" },
      to: { path: "^src/store/(sqlite|postgres)/" },
    },
    {
      name: "explorer-pure",
      comment: "The explorer runs in the browser: it may share the pure language and engine, nothing with I/O.",
      severity: "error",
      from: { path: "^web/" },
      to: { path: "^src/", pathNot: "^src/(lang|contract)/" },
    },
    {
      name: "src-not-tests",
      comment: "Shipped code never imports test helpers.",
      severity: "error",
      from: { path: "^src/", pathNot: "\\.test\\.ts$" },
      to: { path: "^test/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
