import Module, { isBuiltin } from "node:module";

/**
 * `require()` of a Node.js built-in module ("crypto") without going through tsx's resolver.
 *
 * The service runs its TypeScript through tsx, which replaces CommonJS resolution for every `require()` call.
 * Node does not cache the resolution of built-ins, so a package that calls `require("crypto")` per use pays tsx's
 * resolver each time: Apollo Server does, for the hash of every GraphQL request's query (about 14 µs of a
 * ~300 µs `order(id)` request in the CPU profile of bench:graphql). Node's own resolver answers a built-in with
 * its own name before anything else; this does the same in front of tsx's, and leaves every other request to it.
 */
type Resolve = ((this: unknown, request: string, ...rest: unknown[]) => string) & { builtinsFirst?: true };

const loader = Module as unknown as { _resolveFilename: Resolve };
const resolve = loader._resolveFilename;

if (!resolve.builtinsFirst) {
  const builtinsFirst: Resolve = function (this: unknown, request, ...rest) {
    return isBuiltin(request) ? request : resolve.call(this, request, ...rest);
  };
  builtinsFirst.builtinsFirst = true;
  loader._resolveFilename = builtinsFirst;
}
