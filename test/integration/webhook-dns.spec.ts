import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createEndpoint, deliveriesOf, eventually } from "../support/webhooks.ts";

/**
 * Issue 13: SSRF through DNS. WEBHOOK_DNS_SERVERS points the webhook resolver at a local DNS server we control,
 * so names that resolve to loopback, private or metadata addresses, and a name that switches to one after the
 * endpoint was saved (DNS rebinding), are tested for real: such an address is refused when the endpoint is
 * saved and never connected to when a delivery is made.
 */
let dnsServer: TestDnsServer;
let server: TestServer;
let shop: TestMerchant;
/** Stands where 127.0.0.1 leads: a connection here means the guard let a private address through. */
let trap: net.Server;
let trapConnections = 0;
let trapPort: number;

beforeAll(async () => {
  dnsServer = await startDnsServer();
  trap = net.createServer((socket) => {
    trapConnections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  trapPort = (trap.address() as net.AddressInfo).port;
  server = await startTestServer({
    WEBHOOK_DNS_SERVERS: dnsServer.address,
    WEBHOOK_RETRY_SCHEDULE: "200ms,200ms",
    WEBHOOK_TIMEOUT_MS: "3000",
  });
  shop = await server.merchant("DNS Shop");
});
afterAll(async () => {
  await server?.close();
  await dnsServer?.close();
  await new Promise((resolve) => trap?.close(resolve));
});

const PUBLIC = "93.184.215.14";

describe("WEBHOOK_DNS_SERVERS: merchants' hosts resolved by the configured servers", () => {
  it.each([
    ["loopback", ["127.0.0.1"]],
    ["a private network", ["10.20.30.40"]],
    ["the cloud metadata service", ["169.254.169.254"]],
    ["carrier-grade NAT", ["100.64.0.7"]],
    ["IPv6 loopback", ["::1"]],
    ["a public and a private address at once", [PUBLIC, "192.168.1.10"]],
  ])("a name resolving to %s is refused when the endpoint is saved", async (label, addresses) => {
    const name = `${label.replace(/\W+/g, "-").toLowerCase()}.example.test`;
    dnsServer.set(name, addresses);
    const before = dnsServer.queries.length;
    const response = await shop.test.post("/api/v1/webhook-endpoints", { url: `http://${name}:${trapPort}/hook` });
    expect(response.status, response.text).toBe(400);
    expect(response.body.details).toEqual([{ field: "url", message: "must not point to a loopback, private, link-local or internal address" }]);
    expect(dnsServer.queries.slice(before)).toContain(`${name}/A`);
  });

  it("a public name is saved", async () => {
    dnsServer.set("shop.example.test", [PUBLIC]);
    const response = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://shop.example.test/hook" });
    expect(response.status, response.text).toBe(201);
    await shop.test.delete(`/api/v1/webhook-endpoints/${response.body.id}`);
  });

  it.each([
    ["127.0.0.1", "loopback, where a listener waits"],
    ["169.254.169.254", "the metadata service"],
  ])("a name rebound to %s (%s) after the save is never connected to", async (target) => {
    const name = `rebind-${target.replace(/\W/g, "-")}.example.test`;
    dnsServer.set(name, [PUBLIC]);
    const endpoint = await createEndpoint(shop.test, { url: `http://${name}:${trapPort}/hook`, events: ["order.created"] });
    dnsServer.set(name, [target]);
    const queriesBefore = dnsServer.queries.length;

    const created = await shop.test.post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    const deliveries = await eventually(
      () => deliveriesOf(server, created.body.id),
      (rows) => rows.some((row) => row.endpointId === endpoint.id && row.attempts.length >= 2),
    );
    const attempts = deliveries.find((row) => row.endpointId === endpoint.id)!.attempts;
    for (const attempt of attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toContain(`blocked address ${target} (${name})`);
    }
    expect(trapConnections).toBe(0);
    // The delivery asked the configured server, not the system's resolver.
    expect(dnsServer.queries.slice(queriesBefore)).toContain(`${name}/A`);
    await shop.test.delete(`/api/v1/webhook-endpoints/${endpoint.id}`);
  });
});
