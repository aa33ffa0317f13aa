import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox, SecretBoxError, secretKey } from "../../src/domain/secrets/secret-box.ts";
import { PublicUrls } from "../../src/domain/public-urls.ts";

describe("SecretBox", () => {
  const key = secretKey(randomBytes(32));
  const box = new SecretBox(key);

  it("opens what it sealed, and the envelope shows neither the secret nor the key", () => {
    const sealed = box.seal("whsec_topsecret", "webhook_endpoint:1");
    expect(sealed.startsWith(`ocs1.${key.id}.`)).toBe(true);
    expect(sealed).not.toContain("topsecret");
    expect(box.open(sealed, "webhook_endpoint:1")).toBe("whsec_topsecret");
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(SecretBox.isSealed("whsec_plain")).toBe(false);
  });

  it("seals the same secret differently each time (random nonce)", () => {
    expect(box.seal("same", "c")).not.toBe(box.seal("same", "c"));
  });

  it("refuses another context, an altered envelope and an unknown key", () => {
    const sealed = box.seal("secret", "store:A");
    expect(() => box.open(sealed, "store:B")).toThrow(SecretBoxError);
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[3], "base64url");
    flipped[0] ^= 1;
    parts[3] = flipped.toString("base64url");
    expect(() => box.open(parts.join("."), "store:A")).toThrow(SecretBoxError);
    expect(() => new SecretBox(secretKey(randomBytes(32))).open(sealed, "store:A")).toThrow(/unknown key/);
    expect(() => box.open("plain", "store:A")).toThrow(/not a sealed secret/);
  });

  it("opens values of a previous key during a rotation and says they need re-sealing", () => {
    const next = new SecretBox(secretKey(randomBytes(32)), [key]);
    const old = box.seal("rotated", "c");
    expect(next.open(old, "c")).toBe("rotated");
    expect(next.needsReseal(old)).toBe(true);
    expect(next.needsReseal(next.seal("rotated", "c"))).toBe(false);
  });

  it("derives a stable key id from the key", () => {
    const raw = randomBytes(32);
    expect(secretKey(raw).id).toBe(secretKey(Buffer.from(raw)).id);
    expect(() => secretKey(randomBytes(16))).toThrow(SecretBoxError);
  });
});

describe("PublicUrls", () => {
  it("uses PUBLIC_BASE_URL when set, else the listening port on localhost", () => {
    expect(new PublicUrls("https://confirm.example.com", () => 1234).to("/c/abc")).toBe("https://confirm.example.com/c/abc");
    expect(new PublicUrls(null, () => 4321).to("/webhooks/twilio")).toBe("http://localhost:4321/webhooks/twilio");
    expect(new PublicUrls("https://x.example", () => null).isHttps()).toBe(true);
  });
});
