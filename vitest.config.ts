import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports": Node (and so Apollo, graphql-tools, graphql-ws) loads its CommonJS build,
    // while Vite would pick index.mjs for our own files; two copies of graphql refuse each other's types.
    alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }],
  },
  test: {
    // The console's pure pieces (reducers, URL state) are unit-tested next to their feature.
    include: ["test/**/*.spec.ts", "console/src/**/*.spec.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Each integration file boots its own server and database; two cores run two files at a time.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    // expect.poll's default of 1 s is less than a browser round trip (a reload, a query, a redraw) can take on a
    // loaded CI machine; a poll only waits until it passes, so a longer bound costs nothing when all is well.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
