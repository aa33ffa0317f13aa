import { createServer } from "node:http";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { blockedLiteralHost, checkWebhookUrl, guardedLookup, isBlockedAddress } from "../../src/domain/webhooks/url-guard.ts";

describe("isBlockedAddress", () => {
  it.each([
    "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.10", "169.254.169.254",
    "100.64.0.1", "100.100.100.200", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1", "198.18.0.1",
    "::", "::1", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "not an ip",
  ])("blocks %s", (ip) => expect(isBlockedAddress(ip)).toBe(true));

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows %s", (ip) =>
    expect(isBlockedAddress(ip)).toBe(false),
  );
});

describe("checkWebhookUrl", () => {
  const strict = { allowPrivate: false };
  it("names the problem", async () => {
    expect(await checkWebhookUrl("https://hooks.example.com/x", strict)).toBeNull();
    expect(await checkWebhookUrl("https://8.8.8.8/x", strict)).toBeNull();
    expect(await checkWebhookUrl("gopher://hooks.example.com/", strict)).toBe("format");
    expect(await checkWebhookUrl("https://a:b@hooks.example.com/", strict)).toBe("credentials");
    expect(await checkWebhookUrl("http://0x7f.1/", strict)).toBe("private_address");
    expect(await checkWebhookUrl("http://LOCALHOST./", strict)).toBe("private_address");
    expect(await checkWebhookUrl("http://db.internal:5432/", strict)).toBe("private_address");
  });
  it("allows private addresses only when configured to", async () => {
    expect(await checkWebhookUrl("http://127.0.0.1:3000/", { allowPrivate: true })).toBeNull();
    expect(await checkWebhookUrl("ftp://127.0.0.1/", { allowPrivate: true })).toBe("format");
  });
});

describe("delivery-time checks", () => {
  it("flags IP-literal hosts, which never reach a lookup function", () => {
    expect(blockedLiteralHost(new URL("http://[::1]:80/"), { allowPrivate: false })?.code).toBe("EWEBHOOKBLOCKED");
    expect(blockedLiteralHost(new URL("http://127.0.0.1/"), { allowPrivate: true })).toBeNull();
    expect(blockedLiteralHost(new URL("http://8.8.8.8/"), { allowPrivate: false })).toBeNull();
    expect(blockedLiteralHost(new URL("http://hooks.example.com/"), { allowPrivate: false })).toBeNull();
  });

  it("refuses to connect when the name resolves to a blocked address, and connects when allowed", async () => {
    const server = createServer((_req, res) => res.end("reached")).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as AddressInfo).port;
    const get = (allowPrivate: boolean) =>
      new Promise<string>((resolve) => {
        const req = request({ host: "localhost", port, family: 4, lookup: guardedLookup({ allowPrivate }) }, (res) => {
          res.resume();
          resolve(String(res.statusCode));
        });
        req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        req.end();
      });
    try {
      expect(await get(false)).toBe("EWEBHOOKBLOCKED");
      expect(await get(true)).toBe("200");
    } finally {
      server.close();
    }
  });
});
