import type { LookupAddress } from "node:dns";
import { promises as dns } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * SSRF guard for merchant webhook URLs. A merchant chooses the URL, so without this guard our dispatcher would
 * POST wherever they point it: the cloud metadata service, the database port, an admin panel on the private
 * network. Only globally routable unicast addresses are allowed (`WEBHOOK_ALLOW_PRIVATE_URLS=true` lifts it for
 * development). The URL is checked when an endpoint is saved (a clear error for the merchant) and the address is
 * checked again at every delivery, after DNS resolution, because a name can resolve differently later (DNS
 * rebinding).
 */

export interface UrlGuardOptions {
  allowPrivate: boolean;
  /**
   * The DNS servers that resolve merchants' hosts (`ip` or `ip:port`, WEBHOOK_DNS_SERVERS); the system's
   * (/etc/resolv.conf) when absent or empty.
   */
  dnsServers?: readonly string[] | null;
  /**
   * Exact addresses allowed although private. Not configurable: for the tests of the guard itself, which have
   * no public address to connect to (only loopback), so they allow one loopback address and block the others.
   */
  exemptAddresses?: readonly string[];
}

export type UrlProblem =
  /** Not an absolute http(s) URL. */
  | "format"
  /** user:password@ in the URL: it would be stored and shown in clear; use a secret path or verify signatures. */
  | "credentials"
  /** The host is, or resolves to, a loopback/private/link-local/metadata/reserved address. */
  | "private_address";

/** Hostnames that name the local machine or a private network by convention, whatever DNS says. */
const INTERNAL_HOST_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa"];

/** Loopback, private (RFC 1918, ULA), link-local (incl. 169.254.169.254 metadata), CGNAT, multicast, reserved… */
export function isBlockedAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  let address = ipaddr.parse(ip);
  if (address.kind() === "ipv6") {
    const v6 = address as ipaddr.IPv6;
    // ::ffff:10.0.0.1 reaches 10.0.0.1: judge the IPv4 address it carries.
    if (v6.isIPv4MappedAddress()) address = v6.toIPv4Address();
  }
  return address.range() !== "unicast";
}

/** `[::1]` → `::1`: URL keeps IPv6 hosts bracketed. */
function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

function isInternalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || INTERNAL_HOST_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * Save-time check. A name that does not resolve (yet) is accepted: the delivery-time check guards it anyway,
 * and refusing would break merchants whose DNS is still propagating.
 */
export async function checkWebhookUrl(raw: string, options: UrlGuardOptions): Promise<UrlProblem | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "format";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "format";
  if (!url.hostname) return "format";
  if (url.username || url.password) return "credentials";
  if (options.allowPrivate) return null;
  const host = bareHost(url.hostname);
  if (isIP(host)) return isBlockedAddress(host) ? "private_address" : null;
  if (isInternalName(host)) return "private_address";
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SAVE_TIME_LOOKUP_MS)));
  const lookup = publicDnsLookup(host, undefined, options.dnsServers)
    .then((addresses) => (addresses.some((entry) => isBlockedAddress(entry.address)) ? ("private_address" as const) : null))
    .catch(() => null);
  return Promise.race([lookup, slow]).finally(() => clearTimeout(timer));
}

/** A merchant saving an endpoint does not wait on a slow resolver: the delivery-time check still applies. */
const SAVE_TIME_LOOKUP_MS = 2_000;

/** The error a delivery fails with when its host is, or resolves to, a blocked address. */
export class BlockedAddressError extends Error {
  readonly code = "EWEBHOOKBLOCKED";
  constructor(readonly host: string, readonly address: string) {
    super(`blocked address ${address}${host === address ? "" : ` (${host})`}: private and internal networks are not allowed`);
  }
}

/**
 * Delivery-time check for a URL's host, for hosts that are IP literals: Node connects to those without ever
 * calling a lookup function, so `guardedLookup` alone does not see them. Returns the error to fail with, or null.
 */
export function blockedLiteralHost(url: URL, options: UrlGuardOptions): BlockedAddressError | null {
  if (options.allowPrivate) return null;
  const host = bareHost(url.hostname);
  if (isIP(host)) return isBlockedAddress(host) ? new BlockedAddressError(host, host) : null;
  return null;
}

/**
 * A `dns.lookup`-compatible function for `http.request({ lookup })`: resolves the name, then refuses the
 * connection when any resolved address is blocked, so the address checked is the address connected to.
 * IP-literal hosts never reach it: check them with `blockedLiteralHost` first.
 */
export function guardedLookup(options: UrlGuardOptions): LookupFunction {
  const resolve = options.allowPrivate
    ? systemLookup
    : (hostname: string, family: Family) => publicDnsLookup(hostname, family, options.dnsServers);
  return (hostname, lookupOptions, callback) => {
    if (!options.allowPrivate && isInternalName(hostname)) {
      return callback(new BlockedAddressError(hostname, hostname), "", 0);
    }
    resolve(hostname, lookupOptions.family).then(
      (addresses) => {
        if (!options.allowPrivate) {
          const blocked = addresses.find(
            (entry) => isBlockedAddress(entry.address) && !options.exemptAddresses?.includes(entry.address),
          );
          if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), "", 0);
        }
        if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

type Family = number | string | undefined;

/** The system resolver (getaddrinfo, /etc/hosts included): for development and tests, where private is allowed. */
async function systemLookup(hostname: string, family: Family): Promise<LookupAddress[]> {
  return dns.lookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 });
}

/**
 * Public names through c-ares (`dns.Resolver`), bounded by a timeout. `dns.lookup` would run getaddrinfo on
 * libuv's 4-thread pool, where a merchant's resolver that never answers could hold every thread (and with them
 * all other lookups, file and crypto work). /etc/hosts is not consulted: only the public DNS decides where a
 * merchant's URL leads.
 */
const resolvers = new Map<string, dns.Resolver>();

/** One resolver per server list (the system's when empty), made once. */
function resolverFor(servers: readonly string[] | null | undefined): dns.Resolver {
  const key = servers?.join(",") ?? "";
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
    if (servers?.length) resolver.setServers([...servers]);
    resolvers.set(key, resolver);
  }
  return resolver;
}

async function publicDnsLookup(hostname: string, family: Family, servers?: readonly string[] | null): Promise<LookupAddress[]> {
  const publicResolver = resolverFor(servers);
  const none = Promise.resolve<string[]>([]);
  const [v4, v6] = await Promise.allSettled([
    family === 6 || family === "IPv6" ? none : publicResolver.resolve4(hostname),
    family === 4 || family === "IPv4" ? none : publicResolver.resolve6(hostname),
  ]);
  const addresses: LookupAddress[] = [
    ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (addresses.length) return addresses;
  const failure = [v4, v6].find((result): result is PromiseRejectedResult => result.status === "rejected");
  throw failure?.reason ?? Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND", hostname });
}
