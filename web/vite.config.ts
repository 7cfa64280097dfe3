// `vite build web` builds web/ into web/dist, which src/http/serveExplorer.ts serves at GET / and /assets/*.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The hub serves no source maps; the page is small enough to read in the browser as built.
    sourcemap: false,
    target: "es2022",
  },
  logLevel: "warn",
});
