import "./monaco-workers.ts";
// GraphiQL's styles part by part: its all-in-one style.css embeds its fonts as data: URLs, which the CSP's
// font-src 'self' refuses (the editor's own stylesheet and icon font come with monaco-editor, as files).
import "@graphiql/react/style.css";
import "@graphiql/plugin-doc-explorer/style.css";
import "@graphiql/plugin-history/style.css";
import "graphiql/graphiql.css";
import "./explorer.css";
import { useEffect, useMemo } from "react";
import { GraphiQL } from "graphiql";
import { buildSchema } from "graphql";
import schemaSource from "../../../../schema.graphql?raw";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useConsole } from "../../shared/session/console-context.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { createExplorerConnection } from "./explorer-fetcher.ts";

/**
 * The schema is the repository's schema.graphql, bundled into this chunk at build time: GraphiQL's completion and
 * docs need no introspection, which stays off in production for every caller (the SDL is public documentation
 * anyway; the server gains no code path that describes itself).
 */
const schema = buildSchema(schemaSource);

const DEFAULT_QUERY = `# Queries and mutations run as you, in the mode chosen above; subscriptions run live.
# Ctrl+Enter runs the query. Ctrl+M makes Tab leave the editor (and back).
{
  viewer {
    merchant { name }
    user { email role }
    mode
  }
  orders(first: 5) {
    edges { node { externalOrderId status customerName } }
  }
}
`;

/**
 * The API explorer: GraphiQL served with the console (no CDN), signed in by the session. Loaded as its own chunk
 * (with Monaco and its workers) only when this page is opened, and always by a full page load, because its page is
 * served with the one CSP relaxation Monaco needs (inline styles; see console-page.routes.ts).
 */
export default function ExplorerPage() {
  const { t, language } = useI18n();
  const { mode, endSession } = useConsole();
  const viewer = useViewer();
  const connection = useMemo(() => createExplorerConnection({ mode, language, onUnauthenticated: endSession }), [mode, language, endSession]);
  useEffect(() => () => connection.dispose(), [connection]);

  return (
    <section className="explorer-page" aria-labelledby="explorer-title" data-testid="explorer">
      <div className="page-head">
        <h1 id="explorer-title">{t("explorer.title")}</h1>
      </div>
      <p className="muted">{t("explorer.intro")}</p>
      <p className="muted" data-testid="explorer-rule">
        {viewer.canWrite ? t("explorer.ruleAdmin") : t("explorer.ruleViewer")} {t("explorer.keyboard")}
      </p>
      {/* Code reads left to right in either language. */}
      <div className="explorer-frame" dir="ltr" lang="en">
        <GraphiQL
          fetcher={connection.fetcher}
          schema={schema}
          defaultQuery={DEFAULT_QUERY}
          forcedTheme="light"
          // Headers come from the console (session, mode, language); an X-API-Key typed here would switch callers.
          isHeadersEditorEnabled={false}
          // Kept for this browser tab only: the next person at a shared computer does not see what was written.
          storage={sessionStorage}
        />
      </div>
    </section>
  );
}
