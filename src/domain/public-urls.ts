/**
 * Every link and callback URL the service hands out (confirmation pages, provider status callbacks, store
 * webhooks and OAuth redirects) starts with PUBLIC_BASE_URL (SPEC §12). Unset, it is the listening address as
 * `http://localhost:<port>`, known only once the server listens (tests and `PORT=0` pick a free port).
 */
export class PublicUrls {
  constructor(
    private readonly configured: string | null,
    private readonly listeningPort: () => number | null,
  ) {}

  /** The base, without a trailing slash. */
  base(): string {
    if (this.configured) return this.configured;
    const port = this.listeningPort();
    return port === null ? "http://localhost" : `http://localhost:${port}`;
  }

  /** `path` starts with "/". */
  to(path: string): string {
    return `${this.base()}${path}`;
  }

  isHttps(): boolean {
    return this.base().startsWith("https:");
  }
}
