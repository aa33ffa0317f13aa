export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as is (for malformed-body tests); otherwise `body` is JSON-encoded. */
  rawBody?: string | Buffer;
}

/** A thin fetch wrapper over real HTTP: what a merchant's integration would send. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string | null = null,
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  withKey(key: string | null): ApiClient {
    return new ApiClient(this.baseUrl, key, this.defaultHeaders);
  }

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, this.key, { ...this.defaultHeaders, ...headers });
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("GET", path, undefined, options);
  }

  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("POST", path, body, options);
  }

  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("PUT", path, body, options);
  }

  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("PATCH", path, body, options);
  }

  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("DELETE", path, undefined, options);
  }

  async request<T = any>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.defaultHeaders };
    if (this.key) headers["x-api-key"] = this.key;
    let payload: string | Buffer | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] = "application/json";
    }
    Object.assign(headers, options.headers);
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    if (response.headers.get("content-type")?.includes("json") && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
}
