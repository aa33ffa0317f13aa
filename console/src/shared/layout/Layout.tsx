import { NavLink, Navigate, Outlet, useLocation } from "react-router";
import { useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import { useI18n } from "../i18n/i18n.tsx";
import { useConsole } from "../session/console-context.tsx";
import { signOut } from "../session/session-api.ts";
import { ViewerContext } from "../session/viewer.tsx";
import { LiveOrdersProvider } from "../live-orders.tsx";
import { NeedsReplyCount } from "../../features/conversation/NeedsReplyCount.tsx";
import { ErrorBanner } from "../ui/errors.tsx";
import type { Mode } from "../graphql/client.ts";
import type { UserRole } from "../../gql/graphql.ts";
import { canSee, type Page } from "../session/permissions.ts";

const ViewerQueryDocument = graphql(`
  query Viewer {
    viewer {
      user {
        id
        email
        role
      }
      merchant {
        id
        name
      }
      mode
    }
  }
`);

/** The signed-in shell: header (merchant, mode switch, language, sign-out), navigation, and the page. */
export function Layout() {
  const { t } = useI18n();
  const { authenticated, signedOut } = useConsole();
  const location = useLocation();
  const [result] = useQuery({ query: ViewerQueryDocument });

  if (!authenticated) {
    if (signedOut) return <Navigate to="/sign-in" replace />;
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  if (!result.data) {
    return (
      <div className="centered">
        <ErrorBanner error={result.error} />
        {!result.error ? <p>{t("app.loading")}</p> : null}
      </div>
    );
  }
  const viewer = { ...result.data.viewer, canWrite: result.data.viewer.user?.role !== "VIEWER" };
  return (
    <ViewerContext.Provider value={viewer}>
      <LiveOrdersProvider>
        <a className="skip-link" href="#main">
          {t("app.skipToContent")}
        </a>
        <div className={`shell mode-${viewer.mode.toLowerCase()}`}>
          <Header merchantName={viewer.merchant.name} email={viewer.user?.email ?? ""} role={viewer.user?.role ?? "VIEWER"} />
          {viewer.mode === "LIVE" ? (
            <p className="live-banner" role="status">
              {t("mode.liveBanner")}
            </p>
          ) : null}
          <main id="main" tabIndex={-1}>
            {/* A page the role may not use (typed or bookmarked): its own desk instead of a FORBIDDEN banner. */}
            {pageAllowed(viewer.user?.role, location.pathname) ? <Outlet /> : <Navigate to="/follow-ups" replace />}
          </main>
        </div>
      </LiveOrdersProvider>
    </ViewerContext.Provider>
  );
}

const NAV = [
  { to: "/follow-ups", label: "nav.followUps", page: "followUps" },
  { to: "/orders", label: "nav.orders", page: "orders" },
  { to: "/analytics", label: "nav.analytics", page: "analytics" },
  { to: "/keys", label: "nav.keys", page: "keys" },
  { to: "/webhooks", label: "nav.webhooks", page: "webhooks" },
  { to: "/stores", label: "nav.stores", page: "stores" },
  { to: "/settings", label: "nav.settings", page: "settings" },
  // The audit log is for admins only (others get FORBIDDEN).
  { to: "/security", label: "nav.security", page: "security" },
  { to: "/explorer", label: "nav.explorer", page: "explorer" },
] as const satisfies readonly { to: string; label: string; page: Page }[];

function pageAllowed(role: UserRole | undefined, pathname: string): boolean {
  const entry = NAV.find(({ to }) => pathname === to || pathname.startsWith(`${to}/`));
  return !entry || canSee(role, entry.page);
}

/**
 * The explorer's page is served with its own CSP (inline styles for its editor), which applies to the document the
 * browser loaded: going to or leaving the explorer is a full page load, so every other page keeps the strict CSP.
 */
function crossesExplorer(from: string, to: string): boolean {
  const isExplorer = (path: string) => path === "/explorer" || path.startsWith("/explorer/");
  return isExplorer(from) !== isExplorer(to);
}

function Header(props: { merchantName: string; email: string; role: UserRole }) {
  const { t, language, setLanguage } = useI18n();
  const location = useLocation();
  const { mode, setMode, restart } = useConsole();
  const onSignOut = async () => {
    await signOut();
    restart(false);
  };
  return (
    <header className="header">
      <div className="brand">
        <strong title={props.merchantName}>{props.merchantName}</strong>
        {/* The role first: a long e-mail is what the ellipsis cuts, never "read only". */}
        <span className="muted" data-testid="signed-in-as" title={`${t(`role.${props.role}`)} · ${props.email}`}>
          {t(`role.${props.role}`)} · <bdi>{props.email}</bdi>
        </span>
      </div>
      <NeedsReplyCount />
      <nav className="nav" aria-label={t("nav.label")}>
        {NAV.filter(({ page }) => canSee(props.role, page)).map(({ to, label }) => (
          <NavLink key={to} to={to} reloadDocument={crossesExplorer(location.pathname, to)}>
            {t(label)}
          </NavLink>
        ))}
      </nav>
      <div className="header-tools">
        <div className="mode-switch" role="group" aria-label={t("mode.label")}>
          {(["test", "live"] as Mode[]).map((value) => (
            <button key={value} type="button" aria-pressed={mode === value} data-mode={value} onClick={() => setMode(value)}>
              {t(`mode.${value}`)}
            </button>
          ))}
        </div>
        <button type="button" className="link-button" lang={language === "en" ? "ar" : "en"} onClick={() => setLanguage(language === "en" ? "ar" : "en")}>
          {t("language.switchTo")}
        </button>
        <button type="button" className="link-button" onClick={onSignOut}>
          {t("signOut")}
        </button>
      </div>
    </header>
  );
}
