import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { bodySignature256, secretKey, signDelivery, signV1 } from "../../src/domain/webhooks/webhook-signature.ts";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const id = "0192f3a4-5b6c-7d8e-9f00-112233445566";
// Non-ASCII and escapes: the signature is over the exact UTF-8 bytes sent.
const body = '{"event":"order.created","timestamp":"2026-01-31T12:00:00.000Z","data":{"customerName":"ليلى \\"L\\"","subtotal":149.99}}';

const headersOf = (signed: ReturnType<typeof signDelivery>) => ({ ...signed });

describe("webhook signatures (Standard Webhooks v1)", () => {
  it("is what the official standardwebhooks library accepts", () => {
    const secret = newSecret();
    const signed = signDelivery([secret], id, new Date(), body);
    expect(new Webhook(secret).verify(body, headersOf(signed))).toEqual(JSON.parse(body));
    expect(signed["webhook-id"]).toBe(id);
    expect(signed["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(signed["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it("matches the library's own sign()", () => {
    const secret = newSecret();
    const at = new Date("2026-01-31T12:00:00.999Z");
    expect(signV1(secret, id, Math.floor(at.getTime() / 1000), body)).toBe(new Webhook(secret).sign(id, at, body));
  });

  it("is refused for another secret, another body or another id", () => {
    const secret = newSecret();
    const signed = signDelivery([secret], id, new Date(), body);
    expect(() => new Webhook(newSecret()).verify(body, headersOf(signed))).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body.replace("149.99", "149.98"), headersOf(signed))).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headersOf(signed), "webhook-id": `${id}x` })).toThrow(WebhookVerificationError);
  });

  it("signs with both secrets during a rotation: receivers holding either one verify", () => {
    const current = newSecret();
    const previous = newSecret();
    const signed = signDelivery([current, previous], id, new Date(), body);
    expect(signed["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, headersOf(signed))).toBeTruthy();
    expect(new Webhook(previous).verify(body, headersOf(signed))).toBeTruthy();
    expect(() => new Webhook(newSecret()).verify(body, headersOf(signed))).toThrow(WebhookVerificationError);
  });

  it("x-webhook-signature-256 is the hex HMAC of the raw body keyed with the current secret's decoded bytes", () => {
    const current = newSecret();
    const signed = signDelivery([current, newSecret()], id, new Date(), body);
    const expected = createHmac("sha256", Buffer.from(current.slice("whsec_".length), "base64")).update(body).digest("hex");
    expect(signed["x-webhook-signature-256"]).toBe(`sha256=${expected}`);
    expect(bodySignature256(current, body)).toBe(`sha256=${expected}`);
  });

  it("decodes the key after the whsec_ prefix, and refuses an empty one", () => {
    const raw = randomBytes(24);
    expect(secretKey(`whsec_${raw.toString("base64")}`).equals(raw)).toBe(true);
    expect(() => secretKey("whsec_")).toThrow();
    expect(() => signDelivery([], id, new Date(), body)).toThrow();
  });
});
