import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeWhatsApp, reply, type RecordedRequest } from "../support/fake-whatsapp.ts";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { connectGraphQLWs, subscribe } from "../support/graphql-ws.ts";
import { quickReplyCallback, sendCallback, statusCallback, TEST_APP_SECRET } from "../support/meta-callbacks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually } from "../support/webhooks.ts";

/**
 * SPEC §9 through real HTTP: the policy API (REST and GraphQL), reminders through the fake WhatsApp Cloud API
 * (live mode) and the simulator (test mode), taps on reminders, quiet hours, expiry with its webhook and
 * subscription event, and the order timeline. Delays are seconds here (CONFIRMATION_MIN_DELAY=1s).
 */
let fake: FakeWhatsApp;
let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  fake = await FakeWhatsApp.start();
  server = await startTestServer({
    CONFIRMATION_MIN_DELAY: "1s",
    WHATSAPP_API_URL: fake.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
    WHATSAPP_TIMEOUT_MS: "2000",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "200ms",
  });
  shop = await server.merchant("Policy Shop");
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

let phoneSeq = 0;
const uniquePhone = () => `4477009002${String(10 + (phoneSeq++ % 90)).padStart(2, "0")}${phoneSeq >= 90 ? "1" : ""}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const templateOf = (request: RecordedRequest) => request.body.template.name as string;
const bodyParams = (request: RecordedRequest) =>
  request.body.template.components.find((component: any) => component.type === "body").parameters;
const buttons = (request: RecordedRequest) =>
  request.body.template.components.filter((component: any) => component.type === "button");

/** The body of a GraphQL answer ({ data, errors }). */
async function gql(client: GraphQLClient, query: string, variables?: Record<string, unknown>) {
  const response = await client.query(query, variables);
  expect(response.status).toBe(200);
  return response.body as { data: any; errors?: unknown[] };
}

async function usePolicy(client: TestMerchant["test"], policy: Record<string, unknown>) {
  const response = await client.put("/api/v1/confirmation-policy", policy);
  expect(response.status).toBe(200);
  return response.body;
}

const timeline = async (client: TestMerchant["test"], orderId: string) => {
  const response = await client.get(`/api/v1/orders/${orderId}/timeline`);
  expect(response.status).toBe(200);
  return response.body.data as { at: string; kind: string; source: string; detail: any }[];
};

describe("the policy API (REST)", () => {
  it("is empty by default, replaced by PUT, read back by GET, per merchant and mode", async () => {
    const other = await server.merchant("Other Shop");
    // followUpAfter (SPEC §15) is "2h" unless set.
    expect((await other.test.get("/api/v1/confirmation-policy")).body).toEqual({ reminders: [], expireAfter: null, quietHours: null, smsFallback: null, followUpAfter: "2h" });

    const policy = { reminders: ["2h", "12h"], expireAfter: "24h", quietHours: { start: "22:00", end: "09:00", timeZone: "Africa/Cairo" }, smsFallback: null, followUpAfter: "2h" };
    expect(await usePolicy(other.test, policy)).toEqual(policy);
    expect((await other.test.get("/api/v1/confirmation-policy")).body).toEqual(policy);
    // The live mode and other merchants keep their own (empty) policy.
    expect((await other.live.get("/api/v1/confirmation-policy")).body).toEqual({ reminders: [], expireAfter: null, quietHours: null, smsFallback: null, followUpAfter: "2h" });
    expect((await shop.test.get("/api/v1/confirmation-policy")).body.reminders).toEqual([]);

    // Omitted fields take their defaults: PUT replaces the whole policy.
    expect(await usePolicy(other.test, { reminders: ["30m"] })).toEqual({ reminders: ["30m"], expireAfter: null, quietHours: null, smsFallback: null, followUpAfter: "2h" });
    expect(await usePolicy(other.test, {})).toEqual({ reminders: [], expireAfter: null, quietHours: null, smsFallback: null, followUpAfter: "2h" });
  });

  it("needs an API key", async () => {
    expect((await server.api.get("/api/v1/confirmation-policy")).status).toBe(401);
    expect((await server.api.put("/api/v1/confirmation-policy", { reminders: [] })).status).toBe(401);
  });

  it.each([
    [{ reminders: ["2h", "1h"] }, "reminders[1]"],
    [{ reminders: ["2h", "2h"] }, "reminders[1]"],
    [{ reminders: ["1h", "2h", "3h", "4h"] }, "reminders"],
    [{ reminders: ["2 hours"] }, "reminders[0]"],
    [{ reminders: ["0s"] }, "reminders[0]"],
    [{ reminders: ["8d"] }, "reminders[0]"],
    [{ reminders: ["500ms"] }, "reminders[0]"],
    [{ reminders: ["2h"], expireAfter: "1h" }, "expireAfter"],
    [{ reminders: ["2h"], expireAfter: "2h" }, "expireAfter"],
    [{ expireAfter: "169h" }, "expireAfter"],
    [{ expireAfter: 3600 }, "expireAfter"],
    [{ quietHours: { start: "22:00", end: "22:00", timeZone: "UTC" } }, "quietHours.end"],
    [{ quietHours: { start: "24:00", end: "09:00", timeZone: "UTC" } }, "quietHours.start"],
    [{ quietHours: { start: "22:00", end: "9:00", timeZone: "UTC" } }, "quietHours.end"],
    [{ quietHours: { start: "22:00", end: "09:00", timeZone: "Mars/Olympus" } }, "quietHours.timeZone"],
    [{ quietHours: { start: "22:00", end: "09:00" } }, "quietHours.timeZone"],
    [{ reminders: ["1h"], expiresAfter: "2h" }, "expiresAfter"],
    [{ reminders: ["1h\u0000"] }, "reminders[0]"],
    [{ reminders: "1h" }, "reminders"],
  ])("refuses %j with 400 VALIDATION_ERROR naming %s", async (body, field) => {
    const before = (await shop.live.get("/api/v1/confirmation-policy")).body;
    const response = await shop.live.put("/api/v1/confirmation-policy", body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: "VALIDATION_ERROR", errorCode: null });
    expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
    expect((await shop.live.get("/api/v1/confirmation-policy")).body).toEqual(before);
  });

  it("explains refusals in English and Arabic, with the allowed range", async () => {
    const en = await shop.live.put("/api/v1/confirmation-policy", { reminders: ["8d"] });
    expect(en.body.details).toEqual([{ field: "reminders[0]", message: "must be from 1s to 7d" }]);
    const ar = await shop.live.put("/api/v1/confirmation-policy", { reminders: ["2h", "1h"] }, { headers: { "accept-language": "ar" } });
    expect(ar.status).toBe(400);
    expect(ar.body.details[0].field).toBe("reminders[1]");
    expect(ar.body.details[0].message).toMatch(/[\u0600-\u06FF]/);
    expect(ar.body.message).toMatch(/[\u0600-\u06FF]/);
  });

  it("is documented in the OpenAPI document", async () => {
    const document = (await server.api.get("/api/v1/openapi.json")).body;
    expect(Object.keys(document.paths["/api/v1/confirmation-policy"])).toEqual(["get", "put"]);
    expect(document.paths["/api/v1/orders/{id}/timeline"].get.responses["200"]).toBeDefined();
  });
});

describe("the policy API (GraphQL)", () => {
  it("reads and replaces the policy; refusals are userErrors with the input path", async () => {
    const graphql = new GraphQLClient(server.baseUrl, shop.keys.live);
    const update = `mutation($input: ConfirmationPolicyInput!) {
      updateConfirmationPolicy(input: $input) { policy { reminders expireAfter quietHours { start end timeZone } } userErrors { code field message } }
    }`;
    const stored = await gql(graphql, update, {
      input: { reminders: ["1h"], expireAfter: "1d", quietHours: { start: "21:30", end: "08:00", timeZone: "Asia/Riyadh" } },
    });
    expect(stored.errors).toBeUndefined();
    expect(stored.data.updateConfirmationPolicy).toEqual({
      policy: { reminders: ["1h"], expireAfter: "1d", quietHours: { start: "21:30", end: "08:00", timeZone: "Asia/Riyadh" } },
      userErrors: [],
    });
    const read = await gql(graphql, `{ confirmationPolicy { reminders expireAfter quietHours { timeZone } } }`);
    expect(read.data.confirmationPolicy).toEqual({ reminders: ["1h"], expireAfter: "1d", quietHours: { timeZone: "Asia/Riyadh" } });
    expect((await shop.live.get("/api/v1/confirmation-policy")).body.expireAfter).toBe("1d");

    const refused = await gql(graphql, update, { input: { reminders: ["3h", "2h"], expireAfter: "1h" } });
    expect(refused.data.updateConfirmationPolicy.policy).toBeNull();
    expect(refused.data.updateConfirmationPolicy.userErrors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: "VALIDATION_ERROR", field: ["input", "reminders", "1"] }),
        expect.objectContaining({ code: "VALIDATION_ERROR", field: ["input", "expireAfter"] }),
      ]),
    );
    await usePolicy(shop.live, {});
  });
});

describe("reminders (live mode, WhatsApp Cloud API)", () => {
  beforeEach(async () => usePolicy(shop.live, { reminders: ["1s", "2s"] }));
  afterAll(async () => usePolicy(shop.live, {}));

  it("arrive at their delays with the reminder template, the same parameters, buttons and the reminder's callback data", async () => {
    const phone = uniquePhone();
    const created = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }));
    expect(created.status).toBe(201);
    const orderId = created.body.id;
    const createdAt = Date.parse(created.body.createdAt);
    const sent = await eventually(async () => fake.requestsTo(`+${phone}`), (requests) => requests.length >= 3, 10_000);
    expect(sent).toHaveLength(3);
    const [first, reminder1, reminder2] = sent;
    expect(templateOf(first)).toBe("order_confirmation");
    for (const [reminder, n] of [[reminder1, 1], [reminder2, 2]] as const) {
      expect(templateOf(reminder)).toBe("order_confirmation_reminder");
      expect(reminder.body.template.language).toEqual(first.body.template.language);
      expect(bodyParams(reminder)).toEqual(bodyParams(first));
      expect(buttons(reminder)).toEqual(buttons(first));
      expect(reminder.body.biz_opaque_callback_data).toBe(`order=${orderId};reminder=${n}`);
      expect(reminder.at - createdAt).toBeGreaterThanOrEqual(n * 1000 - 5);
      expect(reminder.at - createdAt).toBeLessThan(n * 1000 + 1500);
    }
    await sleep(300);
    expect(fake.requestsTo(`+${phone}`)).toHaveLength(3);

    const steps = await eventually(() => timeline(shop.live, orderId), (entries) => entries.filter((e) => e.kind === "reminder_sent").length === 2);
    expect(steps.map((step) => [step.kind, step.source])).toEqual([
      ["created", "merchant"],
      ["message_sent", "provider"],
      ["reminder_sent", "scheduler"],
      ["reminder_sent", "scheduler"],
    ]);
    expect(steps[2].detail).toMatchObject({ reminder: 1, providerMessageId: expect.stringMatching(/^wamid\./) });
    expect((await shop.live.get(`/api/v1/orders/${orderId}`)).body).toMatchObject({ status: "pending", customerAction: null });
  });

  it("a tap on a reminder confirms the order, by payload or by context id and label", async () => {
    for (const byPayload of [true, false]) {
      const phone = uniquePhone();
      const orderId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body.id;
      await eventually(async () => fake.requestsTo(`+${phone}`), (requests) => requests.length >= 2, 10_000);
      const steps = await eventually(() => timeline(shop.live, orderId), (entries) => entries.some((e) => e.kind === "reminder_sent"));
      const reminderWamid = steps.find((step) => step.kind === "reminder_sent")!.detail.providerMessageId;
      const tap = quickReplyCallback({ wamid: reminderWamid, payload: byPayload ? `APPROVE:${orderId}` : "", text: "Approve", from: phone });
      if (!byPayload) delete tap.entry[0].changes[0].value.messages[0].button.payload;
      expect((await sendCallback(server.baseUrl, tap)).status).toBe(200);
      const order = (await shop.live.get(`/api/v1/orders/${orderId}`)).body;
      expect(order).toMatchObject({ status: "confirmed", customerAction: "approved" });
      const outbox = await server.outbox(orderId);
      expect(outbox.map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
    }
  });

  it("no reminder follows a tap or a cancel", async () => {
    const tapped = uniquePhone();
    const canceled = uniquePhone();
    const tappedId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: tapped }))).body.id;
    const canceledId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: canceled }))).body.id;
    const firstWamid = fake.requestsTo(`+${tapped}`)[0].response.messages[0].id;
    expect((await sendCallback(server.baseUrl, quickReplyCallback({ wamid: firstWamid, payload: `CANCEL:${tappedId}`, from: tapped }))).status).toBe(200);
    expect((await shop.live.delete(`/api/v1/orders/${canceledId}`)).status).toBe(200);
    await sleep(2600);
    expect(fake.requestsTo(`+${tapped}`)).toHaveLength(1);
    expect(fake.requestsTo(`+${canceled}`)).toHaveLength(1);
    const tasks = await server.app.services.database.prisma.orderTask.findMany({ where: { orderId: { in: [tappedId, canceledId] } } });
    expect(tasks.map((task) => task.state)).toEqual(["canceled", "canceled", "canceled", "canceled"]);
    expect((await timeline(shop.live, tappedId)).map((step) => [step.kind, step.source])).toEqual([
      ["created", "merchant"],
      ["message_sent", "provider"],
      ["canceled", "customer"],
    ]);
    expect((await timeline(shop.live, canceledId)).at(-1)).toMatchObject({ kind: "canceled", source: "merchant", detail: { via: "rest" } });
  });

  it("a reminder the provider rejects is recorded with its code and leaves the order pending", async () => {
    const phone = uniquePhone();
    fake.forRecipient(`+${phone}`, reply.success(), reply.graphError(131030), reply.success());
    const orderId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body.id;
    const steps = await eventually(
      () => timeline(shop.live, orderId),
      (entries) => entries.some((e) => e.kind === "reminder_failed") && entries.some((e) => e.kind === "reminder_sent"),
      10_000,
    );
    const failed = steps.find((step) => step.kind === "reminder_failed")!;
    expect(failed.detail).toMatchObject({ reminder: 1, errorCode: 131030 });
    expect(failed.detail.failureReason).toMatch(/allowed list/);
    expect((await shop.live.get(`/api/v1/orders/${orderId}`)).body).toMatchObject({ status: "pending", errorCode: null });
    const task = await server.app.services.database.prisma.orderTask.findFirstOrThrow({ where: { orderId, position: 1 } });
    expect(task).toMatchObject({ state: "failed", errorCode: 131030 });
  });

  it("a reminder's statuses are its own: failed or read never change the order", async () => {
    const phone = uniquePhone();
    const orderId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body.id;
    const steps = await eventually(() => timeline(shop.live, orderId), (entries) => entries.some((e) => e.kind === "reminder_sent"), 10_000);
    const wamid = steps.find((step) => step.kind === "reminder_sent")!.detail.providerMessageId;
    for (const status of ["delivered", "read", "failed", "failed"] as const) {
      expect((await sendCallback(server.baseUrl, statusCallback(wamid, status, { orderId, reminder: 1 }))).status).toBe(200);
    }
    const order = (await shop.live.get(`/api/v1/orders/${orderId}`)).body;
    expect(order).toMatchObject({ status: "pending", deliveryStatus: null, errorCode: null });
    const kinds = (await timeline(shop.live, orderId)).map((step) => step.kind);
    expect(kinds.filter((kind) => kind.startsWith("reminder_") && kind !== "reminder_sent")).toEqual([
      "reminder_delivered",
      "reminder_read",
      "reminder_failed",
    ]);
    expect((await server.outbox(orderId)).map((event) => event.type)).toEqual(["order.created"]);
  });

  it("a status of a reminder not yet recorded as sent gets 503 (Meta delivers it again)", async () => {
    const phone = uniquePhone();
    fake.forRecipient(`+${phone}`, reply.success(), reply.delay(800));
    const orderId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body.id;
    await eventually(async () => fake.requestsTo(`+${phone}`), (requests) => requests.length >= 2, 10_000);
    const early = await sendCallback(server.baseUrl, statusCallback("wamid.NOT-YET-KNOWN", "sent", { orderId, reminder: 1 }));
    expect(early.status).toBe(503);
  });

  it("a failure report of the first message waits (503) while a reminder is at the provider, then fails the order", async () => {
    const phone = uniquePhone();
    fake.forRecipient(`+${phone}`, reply.success(), reply.delay(800));
    const created = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body;
    const wamid = fake.requestsTo(`+${phone}`)[0].response.messages[0].id;
    await eventually(async () => fake.requestsTo(`+${phone}`), (requests) => requests.length >= 2, 10_000);
    const failed = statusCallback(wamid, "failed", { orderId: created.id });
    expect((await sendCallback(server.baseUrl, failed)).status).toBe(503);
    expect((await shop.live.get(`/api/v1/orders/${created.id}`)).body.status).toBe("pending");
    await eventually(() => timeline(shop.live, created.id), (steps) => steps.some((step) => step.kind === "reminder_sent"), 10_000);
    expect((await sendCallback(server.baseUrl, failed)).status).toBe(200);
    expect((await shop.live.get(`/api/v1/orders/${created.id}`)).body).toMatchObject({ status: "failed", errorCode: 131026 });
    const kinds = (await timeline(shop.live, created.id)).map((step) => step.kind);
    expect(kinds.slice(-2)).toEqual(["reminder_sent", "failed"]);
  });

  it("no reminder after the first message failed", async () => {
    const phone = uniquePhone();
    const created = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body;
    const wamid = fake.requestsTo(`+${phone}`)[0].response.messages[0].id;
    expect((await sendCallback(server.baseUrl, statusCallback(wamid, "failed", { orderId: created.id }))).status).toBe(200);
    await sleep(2500);
    expect(fake.requestsTo(`+${phone}`)).toHaveLength(1);
    expect((await shop.live.get(`/api/v1/orders/${created.id}`)).body.status).toBe("failed");
  });

  it("a policy change applies to orders created afterwards only", async () => {
    const before = uniquePhone();
    const after = uniquePhone();
    await usePolicy(shop.live, {});
    await shop.live.post("/api/v1/orders", orderInput({ customerPhone: before }));
    await usePolicy(shop.live, { reminders: ["1s"] });
    await shop.live.post("/api/v1/orders", orderInput({ customerPhone: after }));
    await eventually(async () => fake.requestsTo(`+${after}`), (requests) => requests.length === 2, 10_000);
    await sleep(300);
    expect(fake.requestsTo(`+${before}`)).toHaveLength(1);
  });
});

describe("a tap racing a due reminder (50 orders)", () => {
  it("never lets a reminder out after the tap was answered", async () => {
    await usePolicy(shop.live, { reminders: ["1s"] });
    const phones = Array.from({ length: 50 }, () => uniquePhone());
    // A slow reminder send keeps it in flight long enough for a tap to arrive meanwhile.
    for (const phone of phones) fake.forRecipient(`+${phone}`, reply.success(), reply.delay(200));
    const orders: { id: string; phone: string; wamid: string; createdAt: number }[] = [];
    for (const phone of phones) {
      const created = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body;
      orders.push({ id: created.id, phone, wamid: fake.requestsTo(`+${phone}`)[0].response.messages[0].id, createdAt: Date.parse(created.createdAt) });
    }
    const answeredAt = new Map<string, number>();
    const tap = async (order: (typeof orders)[number]) => {
      const response = await sendCallback(server.baseUrl, quickReplyCallback({ wamid: order.wamid, payload: `APPROVE:${order.id}`, from: order.phone }));
      expect(response.status).toBe(200);
      answeredAt.set(order.id, Date.now());
    };
    // Even orders: the tap lands at the reminder's due time (racing its claim and send decision).
    // Odd orders: the tap lands while the reminder's request is at the provider (racing its result).
    await Promise.all(
      orders.map(async (order, index) => {
        if (index % 2 === 0) {
          await sleep(Math.max(0, order.createdAt + 1000 - Date.now()));
        } else {
          await eventually(async () => fake.requestsTo(`+${order.phone}`).length, (count) => count === 2, 10_000);
        }
        await tap(order);
      }),
    );
    await sleep(1500);
    for (const [index, order] of orders.entries()) {
      const requests = fake.requestsTo(`+${order.phone}`);
      expect(requests.length).toBeLessThanOrEqual(2);
      if (index % 2 === 1) expect(requests).toHaveLength(2);
      if (requests.length === 2) expect(requests[1].at).toBeLessThan(answeredAt.get(order.id)!);
      const steps = await timeline(shop.live, order.id);
      const approved = steps.find((step) => step.kind === "approved")!;
      const reminder = steps.find((step) => step.kind === "reminder_sent");
      expect(Boolean(reminder)).toBe(requests.length === 2);
      // The tap waited for the reminder's result: its step follows the reminder's.
      if (reminder) expect(steps.indexOf(reminder)).toBeLessThan(steps.indexOf(approved));
      expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
    }
    await usePolicy(shop.live, {});
  });
});

describe("quiet hours", () => {
  it("a reminder due inside them waits until they end", async () => {
    const now = new Date();
    const hhmm = (date: Date) => `${String(date.getUTCHours()).padStart(2, "0")}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
    const start = hhmm(new Date(now.getTime() - 60 * 60_000));
    const end = hhmm(new Date(now.getTime() + 2 * 60 * 60_000));
    await usePolicy(shop.live, { reminders: ["1s"], expireAfter: "1d", quietHours: { start, end, timeZone: "UTC" } });
    const phone = uniquePhone();
    const orderId = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body.id;
    await sleep(1800);
    expect(fake.requestsTo(`+${phone}`)).toHaveLength(1);
    const tasks = await server.app.services.database.prisma.orderTask.findMany({ where: { orderId }, orderBy: { dueAt: "asc" } });
    expect(tasks.map((task) => [task.kind, task.state])).toEqual([
      ["reminder", "scheduled"],
      ["expiry", "scheduled"],
    ]);
    expect(hhmm(tasks[0].dueAt)).toBe(end);
    expect(tasks[0].dueAt.getTime()).toBeGreaterThan(now.getTime() + 60 * 60_000);
    // Expiry is not moved by quiet hours.
    expect(Math.abs(tasks[1].dueAt.getTime() - (now.getTime() + 86_400_000))).toBeLessThan(5_000);
    await shop.live.delete(`/api/v1/orders/${orderId}`);
    await usePolicy(shop.live, {});
  });
});

describe("expiry (test mode, simulator)", () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.respond(() => ({ status: 200 }));
  });
  afterAll(() => receiver?.close());

  it("expires an unanswered order once, with order.expired on a verified webhook and a subscription", async () => {
    const merchant = await server.merchant("Expiring Shop");
    receiver.secret = (await createEndpoint(merchant.test, { url: receiver.url("/expiry"), events: ["order.expired"] })).secret;
    await usePolicy(merchant.test, { reminders: ["1s"], expireAfter: "2s" });
    const client = connectGraphQLWs(server, merchant.keys.test);
    const subscription = subscribe(client);
    try {
      await sleep(200);
      const created = (await merchant.test.post("/api/v1/orders", orderInput({ customerPhone: uniquePhone() }))).body;
      const [webhook] = await receiver.waitFor(1, (request) => request.path === "/expiry", 10_000);
      expect(webhook.verified).toBe(true);
      expect(webhook.body).toMatchObject({ event: "order.expired", data: { id: created.id, status: "expired", customerAction: null } });
      const order = (await merchant.test.get(`/api/v1/orders/${created.id}`)).body;
      expect(order).toMatchObject({ status: "expired", customerAction: null });
      expect(webhook.body.data).toEqual(order);

      await eventually(async () => subscription.events(), (events) => events.some((event) => event.event === "order.expired"));
      const expired = subscription.events().filter((event) => event.event === "order.expired");
      expect(expired).toHaveLength(1);
      expect(expired[0]).toMatchObject({ timestamp: webhook.body.timestamp, order: { id: created.id, status: "EXPIRED", customerAction: null } });

      await sleep(1200);
      expect(receiver.requests.filter((request) => request.path === "/expiry")).toHaveLength(1);
      expect((await server.outbox(created.id)).map((event) => event.type)).toEqual(["order.created", "order.expired"]);

      const canceled = await merchant.test.delete(`/api/v1/orders/${created.id}`);
      expect(canceled.status).toBe(409);
      expect(canceled.body).toMatchObject({ error: "ORDER_NOT_PENDING", status: "expired" });
      const tap = await merchant.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
      expect(tap.status).toBe(409);
      expect((await merchant.test.get(`/api/v1/orders/${created.id}`)).body.status).toBe("expired");

      const steps = await timeline(merchant.test, created.id);
      expect(steps.map((step) => [step.kind, step.source])).toEqual([
        ["created", "merchant"],
        ["message_sent", "provider"],
        ["reminder_sent", "scheduler"],
        ["expired", "scheduler"],
      ]);

      const listed = await merchant.test.get("/api/v1/orders?status=expired");
      expect(listed.body.data.map((row: { id: string }) => row.id)).toEqual([created.id]);
      const graphql = new GraphQLClient(server.baseUrl, merchant.keys.test);
      const viaGraphQL = await gql(graphql, `query($id: ID!) { order(id: $id) { status timeline { kind source at detail } } }`, {
        id: created.id,
      });
      expect(viaGraphQL.data.order.status).toBe("EXPIRED");
      expect(viaGraphQL.data.order.timeline).toEqual(steps);
    } finally {
      subscription.unsubscribe();
      await client.dispose();
    }
  });

  it("the simulator shows reminders, and their buttons answer the order", async () => {
    const merchant = await server.merchant("Simulated Shop");
    await usePolicy(merchant.test, { reminders: ["1s"] });
    const phone = uniquePhone();
    const created = (await merchant.test.post("/api/v1/orders", orderInput({ customerPhone: phone, externalOrderId: "SIM-REMINDER" }))).body;
    const conversation = await eventually(
      async () => (await merchant.test.get("/api/v1/test/conversations")).body.data.find((c: { phone: string }) => c.phone === phone),
      (found) => found?.messages.length === 2,
      10_000,
    );
    const [first, reminder] = conversation.messages;
    expect(first.reminder).toBeNull();
    expect(reminder).toMatchObject({ orderId: created.id, reminder: 1, buttons: first.buttons });
    expect(reminder.text).toMatch(/^Reminder: .*SIM-REMINDER/);
    const tap = await merchant.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    expect(tap.body).toMatchObject({ status: "confirmed" });
    expect((await timeline(merchant.test, created.id)).at(-1)).toMatchObject({ kind: "approved", source: "customer", detail: { via: "simulator" } });
  });
});

describe("timeline", () => {
  it("is 404 for another merchant's order and for malformed ids", async () => {
    const created = (await shop.test.post("/api/v1/orders", orderInput())).body;
    const other = await server.merchant("Nosy Shop");
    expect((await other.test.get(`/api/v1/orders/${created.id}/timeline`)).status).toBe(404);
    expect((await shop.live.get(`/api/v1/orders/${created.id}/timeline`)).status).toBe(404);
    expect((await shop.test.get(`/api/v1/orders/not-an-id/timeline`)).status).toBe(404);
  });

  it("records delivery statuses from the provider, and a send rejected at create", async () => {
    const phone = uniquePhone();
    const created = (await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).body;
    const wamid = fake.requestsTo(`+${phone}`)[0].response.messages[0].id;
    for (const status of ["sent", "delivered", "read"] as const) {
      await sendCallback(server.baseUrl, statusCallback(wamid, status, { orderId: created.id }));
    }
    const steps = await timeline(shop.live, created.id);
    expect(steps.map((step) => [step.kind, step.source])).toEqual([
      ["created", "merchant"],
      ["message_sent", "provider"],
      ["delivery_sent", "provider"],
      ["delivery_delivered", "provider"],
      ["delivery_read", "provider"],
    ]);
    expect(steps[1].detail).toEqual({ providerMessageId: wamid });

    const rejectedPhone = uniquePhone();
    fake.forRecipient(`+${rejectedPhone}`, reply.graphError(131030));
    const rejected = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: rejectedPhone }));
    expect(rejected.status).toBe(400);
    const [failedOrder] = (await shop.live.get(`/api/v1/orders?customerPhone=${rejectedPhone}`)).body.data;
    const failedSteps = await timeline(shop.live, failedOrder.id);
    expect(failedSteps.map((step) => [step.kind, step.source])).toEqual([
      ["created", "merchant"],
      ["failed", "provider"],
    ]);
    expect(failedSteps[1].detail).toMatchObject({ errorCode: 131030 });
  });
});
