import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { BUTTON_PAYLOAD, type MessagingProvider } from "../../src/domain/messaging/messaging-provider.ts";
import { hasValidSignature } from "../../src/http/whatsapp-callbacks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import {
  TEST_APP_SECRET,
  TEST_VERIFY_TOKEN,
  buttonReplyCallback,
  fixture,
  newInboundId,
  quickReplyCallback,
  sendCallback,
  sign,
  statusCallback,
  textMessageCallback,
} from "../support/meta-callbacks.ts";

let server: TestServer;
let shop: TestMerchant;
const acceptingLiveProvider: MessagingProvider = {
  name: "accepting-stub",
  sendOrderConfirmation: async (message) => ({ outcome: "accepted", providerMessageId: `wamid.STUB${message.orderId}${randomUUID().slice(0, 8)}` }),
};

beforeAll(async () => {
  // Meta's callbacks concern live orders only (SPEC §14): they are sent through a stub of the live provider.
  server = await startTestServer({ WHATSAPP_APP_SECRET: TEST_APP_SECRET, WHATSAPP_VERIFY_TOKEN: TEST_VERIFY_TOKEN }, { liveProvider: acceptingLiveProvider });
  shop = await server.merchant();
});
afterAll(() => server?.close());

const callback = (body: unknown, options?: Parameters<typeof sendCallback>[2]) => sendCallback(server.baseUrl, body, options);
const get = async (id: string) => (await shop.live.get(`/api/v1/orders/${id}`)).body;
const eventTypes = async (orderId: string) => (await server.outbox(orderId)).map((event) => event.type);

/** A pending live-mode order and the wamid the stub "sent" it with (what Meta's callbacks name). */
async function place(): Promise<{ id: string; wamid: string; order: any }> {
  const response = await shop.live.post("/api/v1/orders", orderInput());
  expect(response.status, response.text).toBe(201);
  const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: response.body.id } });
  expect(row.providerMessageId).toMatch(/^wamid\./);
  return { id: response.body.id, wamid: row.providerMessageId!, order: response.body };
}

async function expectOk(body: unknown) {
  const response = await callback(body);
  expect(response.status, response.text).toBe(200);
  return response;
}

describe("signature", () => {
  it("matches Meta's test vector over the raw bytes, and refuses the tampered body", () => {
    const vector = fixture("webhook-signature-example.json");
    const header = vector.request_headers["X-Hub-Signature-256"];
    expect(hasValidSignature(vector.app_secret, Buffer.from(vector.raw_body), header)).toBe(true);
    expect(hasValidSignature(vector.app_secret, Buffer.from(vector.tampered_body_example), header)).toBe(false);
    expect(hasValidSignature("another secret", Buffer.from(vector.raw_body), header)).toBe(false);
    expect(hasValidSignature(vector.app_secret, Buffer.from(vector.raw_body), header.replace("sha256=", ""))).toBe(false);
    expect(hasValidSignature(vector.app_secret, Buffer.from(vector.raw_body), `${header.slice(0, -2)}`)).toBe(false);
    expect(hasValidSignature(vector.app_secret, Buffer.from(vector.raw_body), undefined)).toBe(false);
  });

  it("a missing, wrong, malformed or re-serialised signature is 401 and changes nothing", async () => {
    const { id, wamid, order } = await place();
    const body = quickReplyCallback({ wamid, payload: BUTTON_PAYLOAD.approve(id) });
    const raw = JSON.stringify(body);
    const attempts = [
      await callback(body, { signature: null }),
      await callback(body, { signature: "" }),
      await callback(body, { secret: "not-the-app-secret" }),
      await callback(body, { signature: "sha256=zz" }),
      await callback(body, { signature: sign(raw).toUpperCase() }),
      // Signed over other bytes than the ones sent (the same JSON, pretty-printed).
      await callback(body, { rawBody: JSON.stringify(body, null, 2), signature: sign(raw) }),
      await callback(statusCallback(wamid, "failed"), { signature: sign(raw) }),
    ];
    for (const response of attempts) expect(response.status).toBe(401);
    expect(await get(id)).toEqual(order);
    expect(await eventTypes(id)).toEqual(["order.created"]);
  });

  it("the route needs no API key and accepts Meta's real signed bytes (escaped unicode)", async () => {
    const vector = fixture("webhook-signature-example.json");
    const response = await callback(undefined, { rawBody: vector.raw_body, signature: sign(vector.raw_body) });
    expect(response.status).toBe(200);
  });
});

describe("GET /webhooks/whatsapp (verification handshake)", () => {
  const verify = (query: string) => fetch(new URL(`/webhooks/whatsapp?${query}`, server.baseUrl));

  it("answers the challenge as text/plain when mode and token match", async () => {
    const example = fixture("webhook-verification-get.json");
    const challenge = example.request.query["hub.challenge"];
    const response = await verify(`hub.mode=subscribe&hub.challenge=${challenge}&hub.verify_token=${TEST_VERIFY_TOKEN}`);
    expect(response.status).toBe(example.expected_response_when_token_matches.status);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await response.text()).toBe(challenge);
  });

  it("403 for a wrong token, a wrong mode or missing parameters", async () => {
    for (const query of [
      `hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=vt_9f2c71e0b4`,
      `hub.mode=unsubscribe&hub.challenge=1158201444&hub.verify_token=${TEST_VERIFY_TOKEN}`,
      `hub.mode=subscribe&hub.challenge=1158201444`,
      ``,
    ]) {
      const response = await verify(query);
      expect(response.status, query).toBe(403);
      expect(await response.text()).toBe("");
    }
  });
});

describe("statuses", () => {
  it("sent → delivered → read move deliveryStatus forward, with no events; a late delivered changes nothing", async () => {
    const { id, wamid } = await place();
    await expectOk(statusCallback(wamid, "sent"));
    expect(await get(id)).toMatchObject({ status: "pending", deliveryStatus: "sent" });
    await expectOk(statusCallback(wamid, "delivered"));
    expect(await get(id)).toMatchObject({ status: "pending", deliveryStatus: "delivered" });
    await expectOk(statusCallback(wamid, "read"));
    const read = await get(id);
    expect(read).toMatchObject({ status: "pending", deliveryStatus: "read" });
    await expectOk(statusCallback(wamid, "delivered"));
    await expectOk(statusCallback(wamid, "sent"));
    expect(await get(id)).toEqual(read);
    expect(await eventTypes(id)).toEqual(["order.created"]);
  });

  it("out of order: read first, then sent and delivered, ends read", async () => {
    const { id, wamid } = await place();
    await expectOk(statusCallback(wamid, "read"));
    await expectOk(statusCallback(wamid, "sent"));
    await expectOk(statusCallback(wamid, "delivered"));
    expect(await get(id)).toMatchObject({ status: "pending", deliveryStatus: "read" });
  });

  it("failed (131026) on a pending order fails it with errorCode, failureReason and order.failed", async () => {
    const { id, wamid } = await place();
    await expectOk(statusCallback(wamid, "sent"));
    await expectOk(statusCallback(wamid, "failed"));
    const failed = await get(id);
    expect(failed).toMatchObject({
      status: "failed",
      deliveryStatus: "failed",
      customerAction: null,
      errorCode: 131026,
      failureReason: "Message undeliverable",
    });
    const events = await server.outbox(id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.failed"]);
    expect(events[1].payload).toMatchObject({ event: "order.failed", data: { id, status: "failed", deliveryStatus: "failed", errorCode: 131026 } });
    expect(events[1].payload.data).toEqual(failed);
    // A later delivered or read does not revive it.
    await expectOk(statusCallback(wamid, "read"));
    expect(await get(id)).toEqual(failed);
  });

  it("failed after the customer confirmed changes nothing", async () => {
    const { id, wamid } = await place();
    await expectOk(quickReplyCallback({ wamid, payload: BUTTON_PAYLOAD.approve(id) }));
    const confirmed = await get(id);
    expect(confirmed.status).toBe("confirmed");
    await expectOk(statusCallback(wamid, "failed"));
    expect(await get(id)).toEqual(confirmed);
    expect(await eventTypes(id)).toEqual(["order.created", "order.confirmed"]);
  });

  it("an unknown wamid falls back to biz_opaque_callback_data; unknown orders and statuses are answered 200", async () => {
    const { id } = await place();
    await expectOk(statusCallback("wamid.UNKNOWN-TO-US", "delivered", { orderId: id }));
    expect((await get(id)).deliveryStatus).toBe("delivered");
    await expectOk(statusCallback("wamid.NOBODY", "read"));
    const played = statusCallback("wamid.NOBODY", "read");
    played.entry[0].changes[0].value.statuses[0].status = "played";
    await expectOk(played);
    expect((await get(id)).deliveryStatus).toBe("delivered");
  });

  it("every entry, change and status of a batched notification is applied", async () => {
    const first = await place();
    const second = await place();
    const body = statusCallback(first.wamid, "delivered");
    body.entry[0].changes[0].value.statuses.push(statusCallback(first.wamid, "read").entry[0].changes[0].value.statuses[0]);
    body.entry.push(statusCallback(second.wamid, "failed").entry[0]);
    await expectOk(body);
    expect((await get(first.id)).deliveryStatus).toBe("read");
    expect(await get(second.id)).toMatchObject({ status: "failed", errorCode: 131026 });
  });
});

describe("button taps", () => {
  it("a quick-reply tap on Approve confirms the order (and implies read), with order.confirmed", async () => {
    const { id, wamid } = await place();
    await expectOk(quickReplyCallback({ wamid, payload: BUTTON_PAYLOAD.approve(id), text: "Approve" }));
    expect(await get(id)).toMatchObject({ status: "confirmed", customerAction: "approved", deliveryStatus: "read" });
    const events = await server.outbox(id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
    expect(events[1].payload.data).toMatchObject({ status: "confirmed", customerAction: "approved" });
  });

  it("an interactive button_reply on Cancel cancels the order, with order.canceled", async () => {
    const { id, wamid } = await place();
    await expectOk(buttonReplyCallback({ wamid, id: BUTTON_PAYLOAD.cancel(id), title: "Cancel" }));
    expect(await get(id)).toMatchObject({ status: "canceled", customerAction: "canceled" });
    expect(await eventTypes(id)).toEqual(["order.created", "order.canceled"]);
  });

  it("without our payload, the replied-to wamid and the button label decide (en and ar)", async () => {
    const approved = await place();
    await expectOk(quickReplyCallback({ wamid: approved.wamid, payload: "Approve", text: "Approve" }));
    expect((await get(approved.id)).status).toBe("confirmed");
    const canceled = await place();
    await expectOk(buttonReplyCallback({ wamid: canceled.wamid, id: "something-else", title: "إلغاء" }));
    expect((await get(canceled.id)).status).toBe("canceled");
    const arabicApprove = await place();
    await expectOk(quickReplyCallback({ wamid: arabicApprove.wamid, payload: "تأكيد", text: "تأكيد" }));
    expect((await get(arabicApprove.id)).status).toBe("confirmed");
    // A label we do not know decides nothing.
    const unknown = await place();
    await expectOk(quickReplyCallback({ wamid: unknown.wamid, payload: "Maybe", text: "Maybe" }));
    expect((await get(unknown.id)).status).toBe("pending");
  });

  it("the duplicate delivery of the same callback is applied once", async () => {
    const { id, wamid } = await place();
    const tap = quickReplyCallback({ wamid, payload: BUTTON_PAYLOAD.cancel(id) });
    await expectOk(tap);
    await expectOk(tap);
    await Promise.all([expectOk(tap), expectOk(tap)]);
    expect(await eventTypes(id)).toEqual(["order.created", "order.canceled"]);
    const failed = await place();
    const failure = statusCallback(failed.wamid, "failed");
    await Promise.all([expectOk(failure), expectOk(failure), expectOk(failure)]);
    expect(await eventTypes(failed.id)).toEqual(["order.created", "order.failed"]);
    const keys = await server.app.services.database.prisma.providerEvent.findMany({ where: { orderId: { in: [id, failed.id] } } });
    expect(keys.map((row) => row.key).sort()).toEqual(
      [`message:${tap.entry[0].changes[0].value.messages[0].id}`, `status:${failed.wamid}:failed`].sort(),
    );
  });

  it("a tap after the merchant canceled changes nothing; a second tap after an answer changes nothing", async () => {
    const { id, wamid } = await place();
    expect((await shop.live.delete(`/api/v1/orders/${id}`)).status).toBe(200);
    const canceled = await get(id);
    await expectOk(quickReplyCallback({ wamid, payload: BUTTON_PAYLOAD.approve(id) }));
    expect(await get(id)).toEqual(canceled);
    expect(await eventTypes(id)).toEqual(["order.created", "order.canceled"]);

    const answered = await place();
    await expectOk(buttonReplyCallback({ wamid: answered.wamid, id: BUTTON_PAYLOAD.approve(answered.id) }));
    await expectOk(buttonReplyCallback({ wamid: answered.wamid, id: BUTTON_PAYLOAD.cancel(answered.id) }));
    expect(await get(answered.id)).toMatchObject({ status: "confirmed", customerAction: "approved" });
    expect(await eventTypes(answered.id)).toEqual(["order.created", "order.confirmed"]);
  });

  it("a text reply and unknown shapes are answered 200 and change nothing", async () => {
    const { id, order } = await place();
    await expectOk(textMessageCallback({ body: "yes" }));
    await expectOk({ object: "whatsapp_business_account", entry: [{ id: "1", changes: [{ field: "messages", value: {} }] }] });
    await expectOk({ something: "else" });
    await expectOk([1, 2, 3]);
    const raw = "not json at all";
    expect((await callback(undefined, { rawBody: raw, signature: sign(raw) })).status).toBe(200);
    expect(await get(id)).toEqual(order);
  });

  it("a tap racing the merchant's DELETE ends in exactly one terminal state and one terminal event", async () => {
    const orders = await Promise.all(Array.from({ length: 20 }, () => place()));
    const results = await Promise.all(
      orders.map(async ({ id, wamid }) => {
        const [tap, cancel] = await Promise.all([
          callback(quickReplyCallback({ wamid, payload: BUTTON_PAYLOAD.approve(id), messageId: newInboundId() })),
          shop.live.delete(`/api/v1/orders/${id}`),
        ]);
        expect(tap.status).toBe(200);
        expect([200, 409]).toContain(cancel.status);
        return { id, cancel };
      }),
    );
    const split = { confirmed: 0, canceled: 0 };
    for (const { id, cancel } of results) {
      const final = await get(id);
      const events = await eventTypes(id);
      const terminal = events.filter((type) => type !== "order.created");
      expect(terminal).toHaveLength(1);
      if (final.status === "confirmed") {
        expect(cancel.status).toBe(409);
        expect(terminal).toEqual(["order.confirmed"]);
      } else {
        expect(final).toMatchObject({ status: "canceled", customerAction: "canceled" });
        expect(cancel.status).toBe(200);
        expect(terminal).toEqual(["order.canceled"]);
      }
      split[final.status as keyof typeof split]++;
    }
    console.log(`tap vs DELETE race over ${results.length} orders: ${JSON.stringify(split)}`);
  });
});

describe("timing", () => {
  it("answers 200 signed status callbacks fast (p50/p99 reported)", async () => {
    const orders = await Promise.all(Array.from({ length: 50 }, () => place()));
    const statuses = ["sent", "delivered", "read", "delivered"] as const;
    const durations: number[] = [];
    for (const status of statuses) {
      for (const { wamid } of orders) durations.push((await expectOk(statusCallback(wamid, status))).ms);
    }
    durations.sort((a, b) => a - b);
    const pct = (p: number) => durations[Math.min(durations.length - 1, Math.ceil((p / 100) * durations.length) - 1)];
    const summary = { n: durations.length, p50: pct(50).toFixed(1), p99: pct(99).toFixed(1), max: pct(100).toFixed(1) };
    console.log(`whatsapp status callbacks (ms, sequential round trips): ${JSON.stringify(summary)}`);
    expect(pct(50)).toBeLessThan(250);
    for (const { id } of orders) expect((await get(id)).deliveryStatus).toBe("read");
  });
});

describe("without WHATSAPP_APP_SECRET or WHATSAPP_VERIFY_TOKEN", () => {
  let bare: TestServer;
  beforeAll(async () => {
    bare = await startTestServer();
  });
  afterAll(() => bare?.close());

  it("every callback is 401 and the handshake 403", async () => {
    const signed = await sendCallback(bare.baseUrl, textMessageCallback());
    expect(signed.status).toBe(401);
    const unsigned = await sendCallback(bare.baseUrl, textMessageCallback(), { signature: null });
    expect(unsigned.status).toBe(401);
    const verify = await fetch(new URL(`/webhooks/whatsapp?hub.mode=subscribe&hub.challenge=1&hub.verify_token=`, bare.baseUrl));
    expect(verify.status).toBe(403);
  });
});

describe("dedupe records of provider callbacks", () => {
  it("are kept through Meta's 7-day retry window and purged after it", async () => {
    const prisma = server.app.services.database.prisma;
    const order = (await shop.live.post("/api/v1/orders", orderInput())).body;
    const day = 24 * 3600_000;
    await prisma.providerEvent.createMany({
      data: [
        { provider: "whatsapp", key: `old-${order.id}`, orderId: order.id, createdAt: new Date(Date.now() - 9 * day) },
        { provider: "whatsapp", key: `recent-${order.id}`, orderId: order.id, createdAt: new Date(Date.now() - 6 * day) },
      ],
    });
    expect(await server.app.services.orderService.purgeProviderEvents()).toBeGreaterThanOrEqual(1);
    const left = await prisma.providerEvent.findMany({ where: { orderId: order.id }, select: { key: true } });
    expect(left.map((row) => row.key)).toEqual([`recent-${order.id}`]);
  });
});

describe("a callback that overtakes the recording of its send", () => {
  it("is answered 503 so Meta retries, and applies once the send result is recorded", async () => {
    const { OrderRepository } = await import("../../src/domain/orders/order.repository.ts");
    const { createOrderInput } = await import("../../src/domain/orders/order.schemas.ts");
    const { prisma, pool } = server.app.services.database;
    const repository = new OrderRepository(prisma, pool);
    const claimed = await repository.insertSending(
      { merchantId: shop.id, mode: "live" },
      createOrderInput.parse(orderInput()),
      "en",
      new Date(),
    );
    if (!("inserted" in claimed)) throw new Error("not inserted");
    const draft = claimed.inserted;
    const wamid = newInboundId();

    // Batched with a status of another, ordinary order: that one is applied at once, only the early one waits.
    const other = (await shop.live.post("/api/v1/orders", orderInput())).body;
    const otherWamid = (await prisma.order.findUniqueOrThrow({ where: { id: other.id } })).providerMessageId!;
    const batch = statusCallback(wamid, "sent", { orderId: draft.id });
    batch.entry[0].changes[0].value.statuses.push(statusCallback(otherWamid, "delivered").entry[0].changes[0].value.statuses[0]);
    const early = await callback(batch);
    expect(early.status).toBe(503);
    expect((await shop.live.get(`/api/v1/orders/${other.id}`)).body.deliveryStatus).toBe("delivered");
    expect((await shop.live.get(`/api/v1/orders/${draft.id}`)).status).toBe(404);

    await repository.markAccepted(draft, wamid, new Date(), [], "rest");
    const retried = await callback(batch);
    expect(retried.status).toBe(200);
    expect((await shop.live.get(`/api/v1/orders/${draft.id}`)).body.deliveryStatus).toBe("sent");
  });
});

describe("the dedupe itself", () => {
  it("skips a repeat of a provider event even when the repeat would change the order", async () => {
    const { orderService, database } = server.app.services;
    const order = (await shop.live.post("/api/v1/orders", orderInput())).body;
    const key = { provider: "whatsapp", key: `status:${order.id}:sent` };
    expect((await orderService.applyDeliveryStatus(order.id, "sent", undefined, null, key)).outcome).toBe("applied");
    // Put the order back where the same report would apply again.
    await database.prisma.order.update({ where: { id: order.id }, data: { deliveryStatus: null } });
    expect((await orderService.applyDeliveryStatus(order.id, "sent", undefined, null, key)).outcome).toBe("duplicate");
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body.deliveryStatus).toBeNull();
  });
});
