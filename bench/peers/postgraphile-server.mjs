/**
 * PostGraphile 4 as a library, for bench/peers.ts: its middleware in a bare node:http server, in a process of its
 * own (bench/peers.ts forks this file), so it never shares an event loop with our service. Plain JavaScript, run
 * by node from this folder, so `postgraphile` resolves to bench/peers/node_modules and never to the service's tree.
 *
 * Environment: PEER_DATABASE_URL (the benchmark's throwaway database), PEER_POOL_SIZE (the same pool size as our
 * service). Tells the parent `{ port }` over IPC once it listens and its schema is built.
 */
import http from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { postgraphile } = require("postgraphile");

const connectionString = process.env.PEER_DATABASE_URL;
const max = Number(process.env.PEER_POOL_SIZE || 20);
if (!connectionString) throw new Error("PEER_DATABASE_URL is required");

// What a production deployment is advised to use (PostGraphile's "production considerations"): no mutations
// generated, JSON as JSON, no GraphiQL, no schema watching, no query log, fail fast on a bad start.
const middleware = postgraphile({ connectionString, max }, "public", {
  disableDefaultMutations: true,
  dynamicJson: true,
  setofFunctionsContainNulls: false,
  ignoreRBAC: false,
  retryOnInitFail: false,
  watchPg: false,
  graphiql: false,
  enableQueryBatching: false,
  disableQueryLog: true,
  legacyRelations: "omit",
  extendedErrors: ["errcode"],
  showErrorStack: false,
});

// The schema is built before the first request is answered: ask for it, then listen.
await middleware.getGraphQLSchema();
const server = http.createServer(middleware);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  process.send?.({ port });
});
process.on("message", (message) => {
  if (message === "close") {
    server.close();
    void middleware.release().finally(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
