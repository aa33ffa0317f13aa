import type { ConsoleSession } from "./console.ts";
import type { FakeShopify } from "./fake-shopify.ts";
import type { TestServer } from "./server.ts";

/** A URL the service handed out (PUBLIC_BASE_URL unset: http://localhost:<port>) made to reach the test server. */
export function onServer(server: TestServer, url: string): string {
  const parsed = new URL(url);
  return `${server.baseUrl}${parsed.pathname}${parsed.search}`;
}

export interface InstallSteps {
  install: Response;
  authorize: Response | null;
  callback: Response | null;
}

/** Runs the whole browser flow: the console's install link, Shopify's authorize page, the callback. */
export async function installShop(server: TestServer, fake: FakeShopify, session: Pick<ConsoleSession, "cookie">, shop: string, mode = "test"): Promise<InstallSteps> {
  const install = await fetch(`${server.baseUrl}/integrations/shopify/install?shop=${encodeURIComponent(shop)}&mode=${mode}`, {
    headers: { cookie: session.cookie },
    redirect: "manual",
  });
  if (install.status !== 302) return { install, authorize: null, callback: null };
  const authorize = await fetch(install.headers.get("location")!, { redirect: "manual" });
  if (authorize.status !== 302) return { install, authorize, callback: null };
  const callback = await fetch(onServer(server, authorize.headers.get("location")!), { headers: { cookie: session.cookie }, redirect: "manual" });
  return { install, authorize, callback };
}

export const STORE_CONNECTIONS = `query {
  storeConnections { id platform shop mode status createdAt lastOrderAt
    settings { codOnly codPaymentNames tagConfirmed tagCanceled tagExpired tagFailed cancelOnCustomerCancel cancelOnExpiry holdFulfillmentUntilConfirmed language }
    activity(first: 50) { at kind storeOrderId orderId detail } }
}`;

export const UPDATE_STORE = `mutation($id: ID!, $input: StoreSettingsInput!) {
  updateStoreConnection(id: $id, input: $input) { connection { id settings { tagConfirmed cancelOnCustomerCancel cancelOnExpiry holdFulfillmentUntilConfirmed codOnly } } userErrors { field message code } }
}`;

export const DISCONNECT_STORE = `mutation($id: ID!) { disconnectStore(id: $id) { connection { id status } userErrors { field message code } } }`;
