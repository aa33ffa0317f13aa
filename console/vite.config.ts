import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The console is served by the service at /console (src/http/routes/console-page.routes.ts) from console/dist.
// `npm run dev:console` serves it on :5173 and proxies the API (start the service on :3000 with
// CONSOLE_ORIGINS=http://localhost:5173 so the proxied requests' Origin is allowed).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No inline scripts or styles (the CSP allows 'self' only), and no data: URLs for assets.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      "/api": "http://localhost:3000",
      "/graphql": { target: "http://localhost:3000", ws: true },
    },
  },
});
