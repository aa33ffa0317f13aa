/** A minimal GraphQL-over-HTTP client for tests: POST application/json to /graphql, as a merchant's code would. */
export interface GraphQLResponse<T = any> {
  status: number;
  headers: Headers;
  body: { data?: T | null; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] };
  text: string;
}

export class GraphQLClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string | null = null,
    private readonly headers: Record<string, string> = {},
  ) {}

  withKey(key: string | null): GraphQLClient {
    return new GraphQLClient(this.baseUrl, key, this.headers);
  }

  withHeaders(headers: Record<string, string>): GraphQLClient {
    return new GraphQLClient(this.baseUrl, this.key, { ...this.headers, ...headers });
  }

  get url(): string {
    return new URL("/graphql", this.baseUrl).toString();
  }

  async query<T = any>(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<GraphQLResponse<T>> {
    return this.post<T>({ query, variables, operationName });
  }

  /** Sends `body` as JSON (any shape: arrays for batching tests). */
  async post<T = any>(body: unknown, headers: Record<string, string> = {}): Promise<GraphQLResponse<T>> {
    return this.raw<T>("POST", JSON.stringify(body), { "content-type": "application/json", ...headers });
  }

  async raw<T = any>(method: string, body: string | undefined, headers: Record<string, string> = {}, search = ""): Promise<GraphQLResponse<T>> {
    const allHeaders: Record<string, string> = { ...this.headers, ...headers };
    if (this.key) allHeaders["x-api-key"] = this.key;
    const response = await fetch(this.url + search, { method, headers: allHeaders, body });
    const text = await response.text();
    let parsed: any = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }
}

/** Every Order field, for selections. */
export const ORDER_SELECTION = `
  id externalOrderId status customerAction deliveryStatus customerName customerPhone customerAddress
  subtotal shippingCost totalCost currency failureReason errorCode
  items { id productName variantName quantity unitPrice totalPrice }
  createdAt updatedAt`;

/** The webhook envelope's data (REST view) in GraphQL's shape: enums upper-case, everything else identical. */
export function asGraphQLOrder(data: any) {
  return {
    ...data,
    status: data.status.toUpperCase(),
    customerAction: data.customerAction ? data.customerAction.toUpperCase() : null,
    deliveryStatus: data.deliveryStatus ? data.deliveryStatus.toUpperCase() : null,
  };
}
