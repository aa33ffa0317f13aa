/**
 * GraphiQL's editor (Monaco) runs its language services in web workers. Vite bundles each worker as a file of the
 * build (`?worker`), so they load from /console/assets under the CSP's 'self' (never blob: or data: URLs). This is
 * graphiql's documented Vite set-up (`graphiql/setup-workers/vite`), written out to leave out its console logging.
 */
import EditorWorker from "monaco-editor/esm/vs/editor/editor.worker.js?worker";
import JsonWorker from "monaco-editor/esm/vs/language/json/json.worker.js?worker";
import GraphQLWorker from "monaco-graphql/esm/graphql.worker.js?worker";

(globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    if (label === "graphql") return new GraphQLWorker();
    if (label === "json") return new JsonWorker();
    return new EditorWorker();
  },
};
