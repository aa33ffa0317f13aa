import { lazy, Suspense } from "react";
import { BrowserRouter, Navigate, Route, Routes } from "react-router";
import { I18nProvider } from "./shared/i18n/i18n.tsx";
import { ConsoleProvider } from "./shared/session/console-context.tsx";
import { Layout } from "./shared/layout/Layout.tsx";
import { SignInPage } from "./features/sign-in/SignInPage.tsx";
import { OrdersPage } from "./features/orders/OrdersPage.tsx";
import { OrderDetailPage } from "./features/orders/OrderDetailPage.tsx";
import { ApiKeysPage } from "./features/keys/ApiKeysPage.tsx";
import { WebhooksPage } from "./features/webhooks/WebhooksPage.tsx";
import { SettingsPage } from "./features/settings/SettingsPage.tsx";
import { SecurityPage } from "./features/security/SecurityPage.tsx";
import { StoresPage } from "./features/stores/StoresPage.tsx";
import { PageLoading } from "./shared/ui/PageLoading.tsx";
import { FollowUpsPage } from "./features/follow-ups/FollowUpsPage.tsx";
import { useViewer } from "./shared/session/viewer.tsx";

/** Agents start at their desk, everyone else at the orders. */
function Home() {
  const viewer = useViewer();
  return <Navigate to={viewer.user?.role === "AGENT" ? "/follow-ups" : "/orders"} replace />;
}

// The analytics page and its chart library are a separate chunk, fetched only when the page is opened.
const AnalyticsPage = lazy(() => import("./features/analytics/AnalyticsPage.tsx"));
// So are the API explorer, GraphiQL and its editor (Monaco) with their workers.
const ExplorerPage = lazy(() => import("./features/explorer/ExplorerPage.tsx"));

export function App() {
  return (
    <I18nProvider>
      <ConsoleProvider>
        <BrowserRouter basename="/console">
          <Routes>
            <Route path="/sign-in" element={<SignInPage />} />
            <Route element={<Layout />}>
              <Route index element={<Home />} />
              <Route path="/follow-ups" element={<FollowUpsPage />} />
              <Route path="/follow-ups/:orderId" element={<FollowUpsPage />} />
              <Route path="/orders" element={<OrdersPage />} />
              <Route path="/orders/:id" element={<OrderDetailPage />} />
              <Route
                path="/analytics"
                element={
                  <Suspense fallback={<PageLoading />}>
                    <AnalyticsPage />
                  </Suspense>
                }
              />
              <Route path="/keys" element={<ApiKeysPage />} />
              <Route path="/webhooks" element={<WebhooksPage />} />
              <Route path="/settings" element={<SettingsPage />} />
              <Route path="/security" element={<SecurityPage />} />
              <Route path="/stores" element={<StoresPage />} />
              <Route
                path="/explorer"
                element={
                  <Suspense fallback={<PageLoading />}>
                    <ExplorerPage />
                  </Suspense>
                }
              />
              <Route path="*" element={<Navigate to="/orders" replace />} />
            </Route>
          </Routes>
        </BrowserRouter>
      </ConsoleProvider>
    </I18nProvider>
  );
}
