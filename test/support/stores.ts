import type { GraphQLClient } from "./graphql.ts";
import type { TestServer } from "./server.ts";

/** GraphQL documents and helpers shared by the store connector tests. */
export const CONNECTION_FIELDS = `id platform shop mode status createdAt lastOrderAt
  settings { codOnly codPaymentNames tagConfirmed tagCanceled tagExpired tagFailed cancelOnCustomerCancel cancelOnExpiry holdFulfillmentUntilConfirmed language }
  activity(first: 50) { at kind storeOrderId orderId detail }`;

export const CONNECT_WOOCOMMERCE = `mutation Connect($input: ConnectWooCommerceStoreInput!) {
  connectWooCommerceStore(input: $input) { connection { ${CONNECTION_FIELDS} } userErrors { code message field } }
}`;

export const CREATE_SALLA_LINK_CODE = `mutation Code($mode: KeyMode!) {
  createSallaLinkCode(mode: $mode) { code expiresAt userErrors { code message field } }
}`;

export const STORE_CONNECTIONS = `{ storeConnections { ${CONNECTION_FIELDS} } }`;

export const UPDATE_STORE = `mutation Update($id: ID!, $input: StoreSettingsInput!) {
  updateStoreConnection(id: $id, input: $input) { connection { id settings { cancelOnCustomerCancel tagConfirmed } } userErrors { message field } }
}`;

export const DISCONNECT_STORE = `mutation Disconnect($id: ID!) {
  disconnectStore(id: $id) { connection { id status } userErrors { message field } }
}`;

export async function connections(graphql: GraphQLClient): Promise<any[]> {
  const response = await graphql.query(STORE_CONNECTIONS);
  if (!response.body.data) throw new Error(`storeConnections failed: ${response.text}`);
  return response.body.data.storeConnections;
}

export async function activityOf(graphql: GraphQLClient, connectionId: string): Promise<any[]> {
  return (await connections(graphql)).find((connection) => connection.id === connectionId)?.activity ?? [];
}

/** The merchant's orders created from a store (REST list filtered by externalOrderId). */
export async function ordersByExternalId(server: TestServer, key: string, externalOrderId: string): Promise<any[]> {
  const response = await server.api.withKey(key).get(`/api/v1/orders?externalOrderId=${encodeURIComponent(externalOrderId)}`);
  return response.body?.data ?? [];
}
