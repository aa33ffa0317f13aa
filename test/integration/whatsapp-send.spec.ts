import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatMoney } from "../../src/domain/messaging/confirmation-text.ts";
import { FakeWhatsApp, GRAPH_ERROR_FIXTURES, loadFixture, reply } from "../support/fake-whatsapp.ts";
import { orderInput } from "../support/fixtures.ts";
import { freePort } from "../support/processes.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * Live-mode create through the WhatsApp Cloud API adapter (SPEC §5.1–5.2), over real HTTP on both sides:
 * the service talks to a fake Graph API on a loopback port, merchants talk to the service.
 */
const PHONE_NUMBER_ID = "271828182845904";
const ACCESS_TOKEN = "EAAG-test-access-token";
const TIMEOUT_MS = 300;

let fake: FakeWhatsApp;
let server: TestServer;
let shop: TestMerchant;

const whatsappEnv = (apiUrl: string) => ({
  WHATSAPP_API_URL: apiUrl,
  WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
  WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
  WHATSAPP_APP_SECRET: "test-app-secret",
  WHATSAPP_TIMEOUT_MS: String(TIMEOUT_MS),
});

beforeAll(async () => {
  fake = await FakeWhatsApp.start();
  server = await startTestServer(whatsappEnv(fake.apiUrl));
  shop = await server.merchant("WhatsApp Shop");
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const storedRow = (id: string) => server.app.services.database.prisma.order.findUnique({ where: { id } });

async function findByExternalId(externalOrderId: string) {
  const list = await shop.live.get(`/api/v1/orders?externalOrderId=${encodeURIComponent(externalOrderId)}`);
  expect(list.status).toBe(200);
  expect(list.body.data).toHaveLength(1);
  return list.body.data[0];
}

/** A recipient of its own per test, so programmes never leak between tests. */
let phoneSeq = 0;
const uniquePhone = () => `4477009001${String(10 + phoneSeq++).padStart(2, "0")}`;

describe("accepted (HTTP 200 with a wamid)", () => {
  it("201 pending; exactly one request with the template body, bearer token, '+' number, payloads and callback data", async () => {
    const input = orderInput({ customerPhone: uniquePhone() });
    const response = await shop.live.post("/api/v1/orders", input);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ status: "pending", customerAction: null, deliveryStatus: null, externalOrderId: input.externalOrderId });
    const orderId: string = response.body.id;

    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe(`/v26.0/${PHONE_NUMBER_ID}/messages`);
    expect(sent.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(sent.headers["content-type"]).toMatch(/^application\/json/);
    expect(sent.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: `+${input.customerPhone}`,
      type: "template",
      biz_opaque_callback_data: `order=${orderId}`,
      template: {
        name: "order_confirmation",
        language: { code: "en", policy: "deterministic" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Layla Hassan" },
              { type: "text", text: input.externalOrderId },
              { type: "text", text: "1 × Arabic coffee (500 g), 2 × Dates" },
              { type: "text", text: "SAR\u00a0164.99" },
              { type: "text", text: "12 King Fahd Rd, Riyadh" },
            ],
          },
          { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: `APPROVE:${orderId}` }] },
          { type: "button", sub_type: "quick_reply", index: "1", parameters: [{ type: "payload", payload: `CANCEL:${orderId}` }] },
        ],
      },
    });

    // The wamid the fake answered is stored, and order.created is in the outbox.
    const row = await storedRow(orderId);
    expect(row?.providerMessageId).toMatch(/^wamid\./);
    expect(row?.mode).toBe("live");
    const outbox = await server.outbox(orderId);
    expect(outbox.map((event) => event.type)).toEqual(["order.created"]);
    expect(outbox[0].payload.data).toMatchObject({ id: orderId, status: "pending" });
    expect(server.app.services.phones.all().some((message) => message.orderId === orderId)).toBe(false);
  });

  it("Accept-Language: ar sends the Arabic translation; a missing address is '-'", async () => {
    const input = orderInput({ customerPhone: uniquePhone(), customerAddress: undefined });
    const response = await shop.live.post("/api/v1/orders", input, { headers: { "accept-language": "ar-SA, en;q=0.5" } });
    expect(response.status).toBe(201);
    expect(fake.requests).toHaveLength(1);
    const { template } = fake.requests[0].body;
    expect(template.language).toEqual({ code: "ar", policy: "deterministic" });
    expect(template.components[0].parameters.map((parameter: { text: string }) => parameter.text)).toEqual([
      "Layla Hassan",
      input.externalOrderId,
      "1 × Arabic coffee (500 g)، 2 × Dates",
      formatMoney(164.99, "SAR", "ar"),
      "-",
    ]);
    expect(template.components[1].parameters[0].payload).toBe(`APPROVE:${response.body.id}`);
    expect(template.components[2].parameters[0].payload).toBe(`CANCEL:${response.body.id}`);
  });

  it("every send gets its own wamid", async () => {
    const first = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: uniquePhone() }));
    const second = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: uniquePhone() }));
    expect([first.status, second.status]).toEqual([201, 201]);
    const [a, b] = await Promise.all([storedRow(first.body.id), storedRow(second.body.id)]);
    expect(a?.providerMessageId).toBeTruthy();
    expect(a?.providerMessageId).not.toBe(b?.providerMessageId);
  });

  it("test-mode keys still go to the simulator, never to WhatsApp", async () => {
    const response = await shop.test.post("/api/v1/orders", orderInput({ customerPhone: uniquePhone() }));
    expect(response.status).toBe(201);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("rejected synchronously (Graph error body)", () => {
  const cases = [131030, 132001, 190] as const;

  it.each(cases)("Graph error %i → the seed's 400 body, order stored failed, no event, no retry", async (code) => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.graphError(code));
    const graphMessage: string = loadFixture(GRAPH_ERROR_FIXTURES[code].fixture).error.message;
    const input = orderInput({ customerPhone: phone });

    const response = await shop.live.post("/api/v1/orders", input);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: `The confirmation message could not be sent: ${graphMessage}`,
      errorCode: code,
      failureReason: graphMessage,
    });
    expect(fake.requests).toHaveLength(1);

    const stored = await findByExternalId(input.externalOrderId);
    expect(stored).toMatchObject({ status: "failed", deliveryStatus: "failed", customerAction: null, errorCode: code, failureReason: graphMessage });
    const byId = await shop.live.get(`/api/v1/orders/${stored.id}`);
    expect(byId.body).toMatchObject({ status: "failed", errorCode: code, failureReason: graphMessage });
    expect(await server.outbox(stored.id)).toEqual([]);
  });

  it("in Arabic the message is localised around the Graph text", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.graphError(131030));
    const response = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }), { headers: { "accept-language": "ar" } });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("تعذّر إرسال رسالة التأكيد: (#131030) Recipient phone number not in allowed list");
  });

  it("no message → error_user_title; neither → 'Unknown failure'", async () => {
    const titled = uniquePhone();
    fake.forRecipient(titled, reply.graphErrorBody(400, { code: 132000, error_user_title: "Template Param Count Mismatch", type: "OAuthException" }));
    const first = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: titled }));
    expect(first.body).toMatchObject({ errorCode: 132000, failureReason: "Template Param Count Mismatch" });

    const bare = uniquePhone();
    fake.forRecipient(bare, reply.graphErrorBody(400, { code: 100 }));
    const second = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: bare }));
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ errorCode: 100, failureReason: "Unknown failure" });
  });
});

describe("transient errors: retried at most twice", () => {
  it("131000 then success → 201 after one retry (2 requests), same body both times", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.graphError(131000), reply.success());
    const response = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }));
    expect(response.status).toBe(201);
    expect(response.body.status).toBe("pending");
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].rawBody).toBe(fake.requests[0].rawBody);
    expect(await server.outbox(response.body.id)).toHaveLength(1);
  });

  it("130429 (rate limit, HTTP 400) is transient too", async () => {
    const phone = uniquePhone();
    fake.forRecipient(
      phone,
      reply.graphErrorBody(400, { message: "(#130429) Rate limit hit", type: "OAuthException", code: 130429 }),
      reply.success(),
    );
    const response = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }));
    expect(response.status).toBe(201);
    expect(fake.requests).toHaveLength(2);
  });

  async function expectUnavailable(phone: string, errorCode: number | null, failureReason: string) {
    const input = orderInput({ customerPhone: phone });
    const started = Date.now();
    const response = await shop.live.post("/api/v1/orders", input);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(502);
    expect(response.body).toEqual({
      success: false,
      message: `The messaging provider is unavailable; the order was stored as failed: ${failureReason}`,
      error: "PROVIDER_UNAVAILABLE",
      errorCode,
      failureReason,
    });
    expect(elapsed).toBeLessThan(5000);
    const stored = await findByExternalId(input.externalOrderId);
    expect(stored).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode, failureReason });
    expect(await server.outbox(stored.id)).toEqual([]);
    return stored;
  }

  it("131000 forever → 502 PROVIDER_UNAVAILABLE with the last Graph code after 3 attempts", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.graphError(131000));
    await expectUnavailable(phone, 131000, "(#131000) Something went wrong");
    expect(fake.requests).toHaveLength(3);
  });

  it("HTTP 503 without a Graph body → 502 with errorCode null after 3 attempts", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.status(503, "<html>Service Unavailable</html>"));
    await expectUnavailable(phone, null, "Unknown failure");
    expect(fake.requests).toHaveLength(3);
  });

  it("a Graph error then a timeout → the last Graph code is reported", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.graphError(131000), reply.delay(TIMEOUT_MS * 4));
    await expectUnavailable(phone, 131000, "(#131000) Something went wrong");
    expect(fake.requests).toHaveLength(3);
  });

  it(`no answer within WHATSAPP_TIMEOUT_MS (${TIMEOUT_MS} ms) → 502 with errorCode null, at most 3 attempts`, async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.delay(TIMEOUT_MS * 4));
    await expectUnavailable(phone, null, "Unknown failure");
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
    expect(fake.requests.length).toBeLessThanOrEqual(3);
  });

  it("connection reset → 502 with errorCode null, 3 attempts", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.reset());
    await expectUnavailable(phone, null, "Unknown failure");
    expect(fake.requests).toHaveLength(3);
  });

  it("a reset, then success → 201", async () => {
    const phone = uniquePhone();
    fake.forRecipient(phone, reply.reset(), reply.success());
    const response = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }));
    expect(response.status).toBe(201);
    expect(fake.requests).toHaveLength(2);
  });
});

describe("connection refused (nothing listens at WHATSAPP_API_URL)", () => {
  let refused: TestServer;
  let merchant: TestMerchant;

  beforeAll(async () => {
    const port = await freePort();
    refused = await startTestServer(whatsappEnv(`http://127.0.0.1:${port}/v26.0`));
    merchant = await refused.merchant("Unreachable Shop");
  });
  afterAll(() => refused?.close());

  it("502 PROVIDER_UNAVAILABLE with errorCode null; the order is stored failed without an event", async () => {
    const input = orderInput();
    const response = await merchant.live.post("/api/v1/orders", input);
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ error: "PROVIDER_UNAVAILABLE", errorCode: null, failureReason: "Unknown failure" });
    const list = await merchant.live.get(`/api/v1/orders?externalOrderId=${input.externalOrderId}`);
    expect(list.body.data[0]).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: null });
    expect(await refused.outbox(list.body.data[0].id)).toEqual([]);
  });
});
