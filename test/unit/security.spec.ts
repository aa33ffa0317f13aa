import { describe, expect, it } from "vitest";
import { decodeAuditCursor, encodeAuditCursor } from "../../src/domain/audit/audit-log.service.ts";
import { SecretBox, secretKey } from "../../src/domain/secrets/secret-box.ts";
import { openEndpointSecret } from "../../src/domain/webhooks/endpoint-secret-context.ts";
import { docsContentSecurityPolicy } from "../../src/http/security-headers.ts";
import { cachedRead } from "../../src/metrics.ts";

describe("gauges read from the database are cached (SPEC §14: /metrics stays cheap)", () => {
  it("reads once per ttl however often it is asked, and does not cache a failure", async () => {
    let now = 0;
    let reads = 0;
    let fail = false;
    const read = cachedRead(async () => {
      reads++;
      if (fail) throw new Error("down");
      return reads;
    }, 10_000, () => now);
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    now = 9_999;
    expect(await read()).toBe(1);
    now = 10_000;
    fail = true;
    expect(await read()).toBeNull();
    fail = false;
    expect(await read()).toBe(3);
    expect(reads).toBe(3);
  });
});

describe("the /docs CSP", () => {
  const swagger = "default-src 'self'; frame-ancestors 'self'; script-src 'self' 'sha256-x'; style-src 'self' https: 'sha256-y'; upgrade-insecure-requests;";
  it("refuses framing, and upgrades requests only when the service is https", () => {
    const base = "default-src 'self'; frame-ancestors 'none'; script-src 'self' 'sha256-x'; style-src 'self' 'unsafe-inline';";
    expect(docsContentSecurityPolicy(swagger, false)).toBe(base);
    expect(docsContentSecurityPolicy(swagger, true)).toBe(`${base} upgrade-insecure-requests;`);
  });
});

describe("audit log cursors", () => {
  it("round-trip an entry id and refuse anything else", () => {
    expect(decodeAuditCursor(encodeAuditCursor("12345"))).toBe(12345n);
    for (const bad of ["", "nope", Buffer.from("audit:-1").toString("base64url"), Buffer.from("audit:1e5").toString("base64url"), "x".repeat(100)]) {
      expect(decodeAuditCursor(bad)).toBeNull();
    }
  });
});

describe("endpoint secrets at rest", () => {
  it("a sealed secret opens under its own endpoint only; a plain one (before sealing) is used as it is", () => {
    const box = new SecretBox(secretKey(Buffer.alloc(32, 1)));
    const id = "0190f0e8-0000-7000-8000-000000000001";
    const sealed = box.seal("whsec_abc", `webhook-endpoint:${id}`);
    expect(openEndpointSecret(box, id, sealed)).toBe("whsec_abc");
    expect(openEndpointSecret(box, id.toUpperCase(), sealed)).toBe("whsec_abc");
    expect(() => openEndpointSecret(box, "0190f0e8-0000-7000-8000-000000000002", sealed)).toThrow(/failed authentication/);
    expect(openEndpointSecret(box, id, "whsec_plain")).toBe("whsec_plain");
  });

  it("a box built for a rotation opens what the old key sealed and seals with the new one", () => {
    const old = secretKey(Buffer.alloc(32, 2));
    const next = secretKey(Buffer.alloc(32, 3));
    const sealedOld = new SecretBox(old).seal("s", "c");
    const rotating = new SecretBox(next, new SecretBox(old).previousKeys().concat(old));
    expect(rotating.open(sealedOld, "c")).toBe("s");
    expect(rotating.needsReseal(sealedOld)).toBe(true);
    expect(rotating.needsReseal(rotating.seal("s", "c"))).toBe(false);
    expect(rotating.previousKeys().map((key) => key.id)).toEqual([old.id]);
  });
});
