import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";

// The console is served by the service at /console (src/http/routes/console-page.routes.ts) from console/dist.
// `npm run dev:console` serves it on :5173 and proxies the API (start the service on :3000 with
// CONSOLE_ORIGINS=http://localhost:5173 so the proxied requests' Origin is allowed).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  plugins: [react(), trustedDocuments()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No inline scripts or styles (the CSP allows 'self' only), and no data: URLs for assets.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // The explorer's chunks (GraphiQL with Monaco and Prettier) are large by nature and loaded only on that page.
    chunkSizeWarningLimit: 3000,
    rolldownOptions: {
      onwarn(warning, warn) {
        // graphiql's React-compiler output starts modules with "use no memo", a hint for the compiler, not the bundler.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  // The API explorer's editor workers (Monaco's and monaco-graphql's, see features/explorer/monaco-workers.ts) are
  // module workers built as files of their own under assets/.
  worker: { format: "es" },
  server: {
    proxy: {
      "/api": "http://localhost:3000",
      "/graphql": { target: "http://localhost:3000", ws: true },
    },
  },
});

/**
 * Trusted documents: the hash → document manifest graphql-codegen wrote for the console's operations goes into the
 * build as trusted-documents.json, which the server loads (src/graphql/trusted-documents.ts).
 */
function trustedDocuments(): Plugin {
  return {
    name: "ocs-trusted-documents",
    apply: "build",
    generateBundle() {
      const manifest = readFileSync(new URL("./src/gql/persisted-documents.json", import.meta.url), "utf8");
      this.emitFile({ type: "asset", fileName: "trusted-documents.json", source: manifest });
    },
  };
}
