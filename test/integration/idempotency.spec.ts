import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import type { ApiResponse } from "../support/api.ts";
import { ORDER_FIELDS, orderInput } from "../support/fixtures.ts";

/** SPEC §3: `Idempotency-Key` on POST replays the first response without sending again. */
let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Idempotent Shop");
});
afterAll(() => server?.close());

const newKey = () => `idem-${randomUUID()}`;
const withKey = (key: string, extra: Record<string, string> = {}) => ({ headers: { "idempotency-key": key, ...extra } });

function sentMessages(): number {
  return server.app.services.phones.all().length;
}

async function ordersWithExternalId(merchantId: string, externalOrderId: string) {
  return server.app.services.database.prisma.order.findMany({ where: { merchantId, externalOrderId } });
}

function expectReplayOf(replay: ApiResponse, first: ApiResponse) {
  expect(replay.status).toBe(first.status);
  expect(replay.body).toEqual(first.body);
  // Same keys in the same order: the client receives the very same document.
  expect(Object.keys(replay.body)).toEqual(Object.keys(first.body));
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(first.headers.get("idempotent-replayed")).toBeNull();
}

function expectFamilyError(response: ApiResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body).sort()).toEqual(["error", "message", "success"]);
  expect(response.body).toEqual({ success: false, message: expect.any(String), error: code });
}

/** The same JSON object with every key order reversed, items included. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).reverse().map(([k, v]) => [k, reversed(v)]));
  }
  return value;
}

describe("a repeat with the same key and body", () => {
  it("replays the 201 with the identical body, without a second order or message", async () => {
    const key = newKey();
    const input = orderInput();
    const sent = sentMessages();
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(first.status).toBe(201);
    expect(Object.keys(first.body)).toEqual(ORDER_FIELDS);
    expect(sentMessages()).toBe(sent + 1);

    const second = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(second, first);
    const third = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(third, first);

    expect(sentMessages()).toBe(sent + 1);
    expect(await ordersWithExternalId(shop.id, input.externalOrderId)).toHaveLength(1);
    const events = await server.app.services.database.prisma.orderEvent.findMany({ where: { orderId: first.body.id } });
    expect(events).toHaveLength(1);
  });

  it("replays the first response even after the order has moved on (the stored response, not the current state)", async () => {
    const key = newKey();
    const input = orderInput();
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    await shop.test.post(`/api/v1/test/orders/${first.body.id}/customer-action`, { action: "approve" });
    const replay = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(replay, first);
    expect(replay.body.status).toBe("pending");
  });

  it("treats the same body with keys in another JSON order as the same request", async () => {
    const key = newKey();
    const input = orderInput();
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(first.status).toBe(201);
    const shuffled = reversed(input);
    expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(input));
    const sent = sentMessages();
    const replay = await shop.test.post("/api/v1/orders", shuffled, withKey(key));
    expectReplayOf(replay, first);
    expect(sentMessages()).toBe(sent);
  });

  it("replays a provider rejection (400 with the seed body) without a DUPLICATE answer", async () => {
    const key = newKey();
    const input = orderInput({ customerPhone: "999131030" });
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(first.status).toBe(400);
    expect(first.body).toEqual({
      message: expect.stringContaining("(#131030) Recipient phone number not in allowed list"),
      errorCode: 131030,
      failureReason: "(#131030) Recipient phone number not in allowed list",
    });
    const replay = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(replay, first);
    expect(Object.keys(replay.body)).toEqual(["message", "errorCode", "failureReason"]);
    expect(await ordersWithExternalId(shop.id, input.externalOrderId)).toHaveLength(1);
  });

  it("replays a 409 DUPLICATE_EXTERNAL_ORDER_ID", async () => {
    const input = orderInput();
    const original = await shop.test.post("/api/v1/orders", input);
    expect(original.status).toBe(201);
    const sent = sentMessages();
    const key = newKey();
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(first.status).toBe(409);
    expect(first.body).toEqual({
      success: false,
      message: expect.any(String),
      error: "DUPLICATE_EXTERNAL_ORDER_ID",
      orderId: original.body.id,
    });
    const replay = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(replay, first);
    expect(sentMessages()).toBe(sent);
  });

  it("replays a 502 PROVIDER_UNAVAILABLE", async () => {
    const key = newKey();
    const input = orderInput({ customerPhone: "9990000000" });
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(first.status).toBe(502);
    const replay = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(replay, first);
    expect(await ordersWithExternalId(shop.id, input.externalOrderId)).toHaveLength(1);
  });

  it("a request rejected by validation does not use up the key", async () => {
    const key = newKey();
    const input = orderInput();
    const invalid = await shop.test.post("/api/v1/orders", { ...input, items: [] }, withKey(key));
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe("VALIDATION_ERROR");
    const valid = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(valid.status).toBe(201);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });

  it("without a key, a repeat is a new request (409 duplicate, not a replay)", async () => {
    const input = orderInput();
    expect((await shop.test.post("/api/v1/orders", input)).status).toBe(201);
    const again = await shop.test.post("/api/v1/orders", input);
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("the same key with a different body", () => {
  it("is 409 IDEMPOTENCY_KEY_REUSED, in English and Arabic, and nothing is sent", async () => {
    const key = newKey();
    const input = orderInput();
    const first = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(first.status).toBe(201);
    const sent = sentMessages();

    const other = await shop.test.post("/api/v1/orders", { ...input, totalCost: 1 }, withKey(key));
    expectFamilyError(other, 409, "IDEMPOTENCY_KEY_REUSED");
    expect(other.body.message).toBe("This Idempotency-Key was already used with a different request");
    expect(other.headers.get("idempotent-replayed")).toBeNull();

    const otherOrder = await shop.test.post("/api/v1/orders", orderInput(), withKey(key, { "accept-language": "ar" }));
    expectFamilyError(otherOrder, 409, "IDEMPOTENCY_KEY_REUSED");
    expect(otherOrder.body.message).toMatch(/[\u0600-\u06FF]/);
    expect(otherOrder.headers.get("content-language")).toBe("ar");

    expect(sentMessages()).toBe(sent);
    // The original is still replayable.
    expectReplayOf(await shop.test.post("/api/v1/orders", input, withKey(key)), first);
  });

  it("a changed item counts as a different body", async () => {
    const key = newKey();
    const input = orderInput();
    expect((await shop.test.post("/api/v1/orders", input, withKey(key))).status).toBe(201);
    const items = [{ ...input.items[0], quantity: 2 }, input.items[1]];
    expectFamilyError(await shop.test.post("/api/v1/orders", { ...input, items }, withKey(key)), 409, "IDEMPOTENCY_KEY_REUSED");
  });
});

describe("scope", () => {
  it("keys are per merchant: another merchant's identical key is independent", async () => {
    const other = await server.merchant("Other Idempotent Shop");
    const key = newKey();
    const mine = await shop.test.post("/api/v1/orders", orderInput(), withKey(key));
    const theirs = await other.test.post("/api/v1/orders", orderInput(), withKey(key));
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // Each merchant's repeat replays its own first response.
    const theirReplay = await other.test.post("/api/v1/orders", orderInput({ externalOrderId: theirs.body.externalOrderId }), withKey(key));
    expectReplayOf(theirReplay, theirs);
    const myReplay = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: mine.body.externalOrderId }), withKey(key));
    expectReplayOf(myReplay, mine);
  });

  it("keys are case-sensitive", async () => {
    const key = `Case-${randomUUID()}`;
    const first = await shop.test.post("/api/v1/orders", orderInput(), withKey(key));
    const second = await shop.test.post("/api/v1/orders", orderInput(), withKey(key.toLowerCase()));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });
});

describe("an invalid key", () => {
  it.each([
    ["300 characters", "k".repeat(300)],
    ["256 characters", "k".repeat(256)],
    ["a space inside", "my key"],
    ["a tab inside", "my\tkey"],
  ])("%s → 400 VALIDATION_ERROR naming the header; nothing stored or sent", async (_name, key) => {
    const input = orderInput();
    const sent = sentMessages();
    const response = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(response.status).toBe(400);
    expect(Object.keys(response.body).sort()).toEqual(["details", "error", "errorCode", "failureReason", "message", "success"]);
    expect(response.body).toMatchObject({ success: false, error: "VALIDATION_ERROR", errorCode: null });
    expect(response.body.failureReason).toBe(response.body.message);
    expect(response.body.details).toEqual([{ field: "idempotency-key", message: "must be 1–255 visible ASCII characters" }]);
    expect(await ordersWithExternalId(shop.id, input.externalOrderId)).toHaveLength(0);
    expect(sentMessages()).toBe(sent);
  });

  it("is localised in Arabic", async () => {
    const response = await shop.test.post("/api/v1/orders", orderInput(), withKey("k".repeat(300), { "accept-language": "ar" }));
    expect(response.status).toBe(400);
    expect(response.body.details[0].field).toBe("idempotency-key");
    expect(response.body.details[0].message).toMatch(/[\u0600-\u06FF]/);
  });

  it("accepts a 255-character key of visible ASCII", async () => {
    const key = `${randomUUID()}!#$%&'()*+,-./:;<=>?@[]^_\`{|}~`.padEnd(255, "z");
    const response = await shop.test.post("/api/v1/orders", orderInput(), withKey(key));
    expect(response.status).toBe(201);
    const replay = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: response.body.externalOrderId }), withKey(key));
    // Same externalOrderId, other fields equal too (orderInput is deterministic apart from the id).
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("concurrency", () => {
  it("parallel requests with one key: one 201, the rest replays or IDEMPOTENCY_KEY_IN_USE; one order, one message", async () => {
    const key = newKey();
    const input = orderInput();
    const sent = sentMessages();
    const responses = await Promise.all(Array.from({ length: 8 }, () => shop.test.post("/api/v1/orders", input, withKey(key))));
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    expect(fresh).toHaveLength(1);
    for (const response of responses) {
      if (response === fresh[0]) continue;
      if (response.status === 201) {
        expect(response.headers.get("idempotent-replayed")).toBe("true");
        expect(response.body).toEqual(fresh[0].body);
      } else {
        expectFamilyError(response, 409, "IDEMPOTENCY_KEY_IN_USE");
      }
    }
    expect(sentMessages()).toBe(sent + 1);
    expect(await ordersWithExternalId(shop.id, input.externalOrderId)).toHaveLength(1);
    // Once settled, every repeat is a replay.
    expectReplayOf(await shop.test.post("/api/v1/orders", input, withKey(key)), fresh[0]);
  });
});

describe("a claim left by a request that died", () => {
  it("blocks the key while recent, and is taken over once older than the send deadline", async () => {
    const { createHash } = await import("node:crypto");
    const { canonicalJson } = await import("../../src/domain/idempotency/idempotency.service.ts");
    const input = orderInput();
    const key = newKey();
    const requestHash = createHash("sha256").update(`POST /api/v1/orders\n${canonicalJson(input)}`).digest("hex");
    const claim = (createdAt: Date) =>
      server.app.services.database.prisma.idempotencyRecord.create({
        data: {
          id: randomUUID(),
          merchantId: shop.id,
          mode: "test",
          key,
          method: "POST",
          path: "/api/v1/orders",
          requestHash,
          createdAt,
          expiresAt: new Date(createdAt.getTime() + 24 * 3600_000),
        },
      });
    const recent = await claim(new Date());
    const blocked = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toBe("IDEMPOTENCY_KEY_IN_USE");

    await server.app.services.database.prisma.idempotencyRecord.delete({ where: { id: recent.id } });
    await claim(new Date(Date.now() - 10 * 60_000));
    const taken = await shop.test.post("/api/v1/orders", input, withKey(key));
    expect(taken.status).toBe(201);
    const replay = await shop.test.post("/api/v1/orders", input, withKey(key));
    expectReplayOf(replay, taken);
  });
});
