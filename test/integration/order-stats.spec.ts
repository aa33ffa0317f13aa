import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { consoleSession } from "../support/console.ts";
import { seedOrders, type SeedOrder } from "../support/order-seed.ts";
import { orderInput } from "../support/fixtures.ts";
import { RELATIVE_ERROR } from "../../src/domain/stats/answer-histogram.ts";
import { OrderStatsVerifier } from "../../src/domain/stats/order-stats-verifier.ts";

/**
 * Query.orderStats and GET /api/v1/stats/orders over real HTTP, against figures computed by hand from orders
 * seeded with explicit times and outcomes.
 */
let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;
let dst: TestMerchant;

const at = (day: string, time: string) => `2026-03-${day}T${time}Z`;

// Shop, test mode. Day 01: two confirmations (60 s, 300 s), a customer's cancel (120 s), a merchant's cancel,
// a late failure. Day 02: nothing. Day 03: failures (131026, 132015, none), pending, expired, and an order from
// before the timeline existed (confirmed, updatedAt 600 s later). Around the range: one just before (confirmed
// after 30 s), one exactly at `to`.
const SHOP_ORDERS: SeedOrder[] = [
  { externalOrderId: "A-1", createdAt: at("01", "10:00:00.000"), status: "confirmed", answer: { by: "customer", at: at("01", "10:01:00.000") } },
  { externalOrderId: "A-2", createdAt: at("01", "11:00:00.000"), status: "confirmed", answer: { by: "customer", at: at("01", "11:05:00.000") } },
  { externalOrderId: "A-3", createdAt: at("01", "12:00:00.000"), status: "canceled", answer: { by: "customer", at: at("01", "12:02:00.000") } },
  { externalOrderId: "A-4", createdAt: at("01", "13:00:00.000"), status: "canceled", answer: { by: "merchant", at: at("01", "13:30:00.000") } },
  { externalOrderId: "A-5", createdAt: at("01", "23:30:00.000"), status: "failed", errorCode: 131026 },
  { externalOrderId: "A-6", createdAt: at("03", "00:30:00.000"), status: "failed", errorCode: 131026 },
  { externalOrderId: "A-7", createdAt: at("03", "01:00:00.000"), status: "failed", errorCode: 132015 },
  { externalOrderId: "A-8", createdAt: at("03", "02:00:00.000"), status: "failed", errorCode: null },
  { externalOrderId: "A-9", createdAt: at("03", "03:00:00.000"), status: "pending" },
  { externalOrderId: "A-10", createdAt: at("03", "04:00:00.000"), status: "expired" },
  { externalOrderId: "A-11", createdAt: at("03", "05:00:00.000"), status: "confirmed", legacyAnsweredAt: at("03", "05:10:00.000") },
  { externalOrderId: "A-12", createdAt: "2026-02-28T23:59:59.999Z", status: "confirmed", answer: { by: "customer", at: at("01", "00:00:29.999") } },
  { externalOrderId: "A-13", createdAt: "2026-03-04T00:00:00.000Z", status: "confirmed", answer: { by: "customer", at: "2026-03-04T00:01:00.000Z" } },
  // Never visible: its send has no result yet.
  { externalOrderId: "A-14", createdAt: at("01", "15:00:00.000"), status: "pending", sendState: "sending" },
  // The shop's live mode.
  { externalOrderId: "A-15", mode: "live", createdAt: at("01", "16:00:00.000"), status: "confirmed", answer: { by: "customer", at: at("01", "16:00:10.000") } },
];

/**
 * A time to answer read from the histograms (docs/statistics.md): within 1.96 % of the exact percentile, plus the
 * millisecond rounding.
 */
const near = (exact: number) => ({
  asymmetricMatch: (actual: unknown) => typeof actual === "number" && Math.abs(actual - exact) <= exact * RELATIVE_ERROR + 0.0005,
  toString: () => `a time within ${(RELATIVE_ERROR * 100).toFixed(2)} % of ${exact}`,
  toAsymmetricMatcher: () => `near(${exact})`,
});

const EMPTY = {
  created: 0, confirmed: 0, canceled: 0, failed: 0, expired: 0, pending: 0, answered: 0,
  confirmationRate: null, answerRate: null, timeToAnswerP50Seconds: null, timeToAnswerP90Seconds: null, failuresByErrorCode: [],
};

const MEANING_131026 = "Message undeliverable (recipient not on WhatsApp, or device offline)";
const MEANING_132015 = "Template paused due to quality drop";
const MEANING_NONE = "Failed before reaching the provider (no error code)";

const UTC_RANGE = { from: "2026-03-01T00:00:00Z", to: "2026-03-04T00:00:00Z" };

const FIGURES = `created confirmed canceled failed expired pending answered confirmationRate answerRate
  timeToAnswerP50Seconds timeToAnswerP90Seconds failuresByErrorCode { errorCode count meaning }`;
const STATS_QUERY = `query Stats($from: DateTime!, $to: DateTime!, $timeZone: String, $interval: StatsInterval) {
  orderStats(from: $from, to: $to, timeZone: $timeZone, interval: $interval) {
    from to timeZone interval totals { ${FIGURES} } buckets { start ${FIGURES} }
  }
}`;
// The same query with the defaults of timeZone and interval.
const DEFAULTS_QUERY = `query Stats($from: DateTime!, $to: DateTime!) {
  orderStats(from: $from, to: $to) { timeZone interval totals { created } buckets { start } }
}`;

async function rest(client: TestMerchant["test"], params: Record<string, string>, headers: Record<string, string> = {}) {
  return client.get(`/api/v1/stats/orders?${new URLSearchParams(params)}`, { headers });
}

async function restStats(client: TestMerchant["test"], params: Record<string, string>) {
  const response = await rest(client, params);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

function graphql(key: string) {
  return new GraphQLClient(server.baseUrl, key);
}

async function graphqlStats(client: GraphQLClient, variables: Record<string, unknown>) {
  const response = await client.query(STATS_QUERY, variables);
  expect(response.status, response.text).toBe(200);
  expect(response.body.errors, response.text).toBeUndefined();
  return response.body.data.orderStats;
}

/** GraphQL's answer in REST's shape (the interval's case is the only difference). */
const asRest = (stats: any) => ({ ...stats, interval: stats.interval.toLowerCase() });

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Stats Shop");
  other = await server.merchant("Other Shop");
  dst = await server.merchant("DST Shop");
  await seedOrders(server, shop.id, SHOP_ORDERS);
  // Another merchant's orders in the same range never count for the shop.
  await seedOrders(server, other.id, [
    { createdAt: at("01", "10:00:00.000"), status: "confirmed", answer: { by: "customer", at: at("01", "10:00:05.000") } },
    { createdAt: at("02", "10:00:00.000"), status: "failed", errorCode: 131030 },
  ]);
  // New York switches to daylight time at 2026-03-08 02:00 local (07:00Z): that day is 23 hours long.
  await seedOrders(server, dst.id, [
    { externalOrderId: "D-1", createdAt: "2026-03-08T06:59:59.999Z", status: "pending" }, // 01:59:59 EST, March 8
    { externalOrderId: "D-2", createdAt: "2026-03-08T07:00:00.000Z", status: "pending" }, // 03:00 EDT, March 8
    { externalOrderId: "D-3", createdAt: "2026-03-09T03:30:00.000Z", status: "pending" }, // 23:30 EDT, March 8
    { externalOrderId: "D-4", createdAt: "2026-03-09T04:30:00.000Z", status: "pending" }, // 00:30 EDT, March 9
  ]);
});
afterAll(() => server?.close());

describe("orderStats by UTC day", () => {
  it("counts statuses, answers, rates, percentiles and failures as defined, with an empty day in between", async () => {
    const stats = await restStats(shop.test, UTC_RANGE);
    expect(stats).toEqual({
      from: "2026-03-01T00:00:00.000Z",
      to: "2026-03-04T00:00:00.000Z",
      timeZone: "UTC",
      interval: "day",
      totals: {
        created: 11, confirmed: 3, canceled: 2, failed: 4, expired: 1, pending: 1,
        // A-3 (customer's cancel) and the legacy A-11; A-4 was the merchant's cancel.
        answered: 4,
        confirmationRate: 0.75,
        answerRate: 0.3636,
        // Seconds to answer: 60, 120, 300, 600 → p50 = (120 + 300) / 2; p90 = 300 + 0.7 × (600 − 300).
        timeToAnswerP50Seconds: near(210),
        timeToAnswerP90Seconds: near(510),
        failuresByErrorCode: [
          { errorCode: 131026, count: 2, meaning: MEANING_131026 },
          { errorCode: 132015, count: 1, meaning: MEANING_132015 },
          { errorCode: null, count: 1, meaning: MEANING_NONE },
        ],
      },
      buckets: [
        {
          start: "2026-03-01T00:00:00.000Z",
          created: 5, confirmed: 2, canceled: 2, failed: 1, expired: 0, pending: 0, answered: 3,
          confirmationRate: 0.6667, answerRate: 0.6,
          // 60, 120, 300 → p50 = 120; p90 = 120 + 0.8 × 180.
          timeToAnswerP50Seconds: near(120), timeToAnswerP90Seconds: near(264),
          failuresByErrorCode: [{ errorCode: 131026, count: 1, meaning: MEANING_131026 }],
        },
        { start: "2026-03-02T00:00:00.000Z", ...EMPTY },
        {
          start: "2026-03-03T00:00:00.000Z",
          created: 6, confirmed: 1, canceled: 0, failed: 3, expired: 1, pending: 1, answered: 1,
          confirmationRate: 1, answerRate: 0.1667, timeToAnswerP50Seconds: near(600), timeToAnswerP90Seconds: near(600),
          failuresByErrorCode: [
            { errorCode: 131026, count: 1, meaning: MEANING_131026 },
            { errorCode: 132015, count: 1, meaning: MEANING_132015 },
            { errorCode: null, count: 1, meaning: MEANING_NONE },
          ],
        },
      ],
    });
  });

  it("answers the same data over GraphQL as over REST", async () => {
    const viaRest = await restStats(shop.test, UTC_RANGE);
    const viaGraphql = await graphqlStats(graphql(shop.keys.test), { ...UTC_RANGE, timeZone: "UTC", interval: "DAY" });
    expect(viaGraphql.interval).toBe("DAY");
    expect(asRest(viaGraphql)).toEqual(viaRest);
  });

  it("defaults to UTC days on both doors", async () => {
    const response = await graphql(shop.keys.test).query(DEFAULTS_QUERY, UTC_RANGE);
    expect(response.body.data.orderStats).toEqual({
      timeZone: "UTC",
      interval: "DAY",
      totals: { created: 11 },
      buckets: [{ start: "2026-03-01T00:00:00.000Z" }, { start: "2026-03-02T00:00:00.000Z" }, { start: "2026-03-03T00:00:00.000Z" }],
    });
    const viaRest = await restStats(shop.test, UTC_RANGE);
    expect([viaRest.timeZone, viaRest.interval]).toEqual(["UTC", "day"]);
  });

  it("explains failure codes in Arabic with Accept-Language: ar", async () => {
    const response = await rest(shop.test, UTC_RANGE, { "accept-language": "ar" });
    expect(response.status).toBe(200);
    expect(response.body.totals.failuresByErrorCode.map((entry: any) => entry.meaning)).toEqual([
      "تعذّر تسليم الرسالة (المستلم ليس على واتساب أو جهازه غير متصل)",
      "القالب موقوف مؤقتًا بسبب انخفاض الجودة",
      "فشل قبل الوصول إلى مزوّد الرسائل (بلا رمز خطأ)",
    ]);
    const viaGraphql = await graphql(shop.keys.test).withHeaders({ "accept-language": "ar" }).query(STATS_QUERY, UTC_RANGE);
    expect(viaGraphql.body.data.orderStats.totals.failuresByErrorCode).toEqual(response.body.totals.failuresByErrorCode);
  });

  it("answers zeros and nulls for a range without orders, every bucket present", async () => {
    const stats = await restStats(shop.test, { from: "2025-01-01T00:00:00Z", to: "2025-01-08T00:00:00Z" });
    expect(stats.totals).toEqual(EMPTY);
    expect(stats.buckets).toHaveLength(7);
    expect(stats.buckets.map((bucket: any) => bucket.start)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((day) => `2025-01-0${day}T00:00:00.000Z`),
    );
    for (const bucket of stats.buckets) expect(bucket).toEqual({ start: bucket.start, ...EMPTY });
  });

  it("keeps merchants and modes apart", async () => {
    const live = await restStats(shop.live, UTC_RANGE);
    expect(live.totals).toMatchObject({ created: 1, confirmed: 1, answered: 1, timeToAnswerP50Seconds: near(10) });
    const others = await graphqlStats(graphql(other.keys.test), UTC_RANGE);
    expect(others.totals).toMatchObject({
      created: 2, confirmed: 1, failed: 1, answered: 1, confirmationRate: 1, answerRate: 0.5, timeToAnswerP50Seconds: near(5),
      failuresByErrorCode: [{ errorCode: 131030, count: 1, meaning: "Recipient phone number not in the allowed list (test mode only)" }],
    });
    const othersLive = await restStats(other.live, UTC_RANGE);
    expect(othersLive.totals).toEqual(EMPTY);
  });
});

describe("orderStats in other time zones", () => {
  it("buckets by the zone's days: Asia/Riyadh (UTC+3) moves A-5 to the second day and takes in A-12", async () => {
    const stats = await restStats(shop.test, {
      from: "2026-03-01T00:00:00+03:00",
      to: "2026-03-04T00:00:00+03:00",
      timeZone: "Asia/Riyadh",
    });
    expect(stats.from).toBe("2026-02-28T21:00:00.000Z");
    expect(stats.timeZone).toBe("Asia/Riyadh");
    expect(stats.buckets.map((bucket: any) => [bucket.start, bucket.created, bucket.confirmed, bucket.failed])).toEqual([
      ["2026-02-28T21:00:00.000Z", 5, 3, 0], // … A-4
      ["2026-03-01T21:00:00.000Z", 1, 0, 1], // A-5 at 02:30 local
      ["2026-03-02T21:00:00.000Z", 6, 1, 3], // A-6 … A-11
    ]);
    // A-12 answered in 30 s joins 60, 120, 300, 600.
    expect(stats.totals).toMatchObject({ created: 12, answered: 5, timeToAnswerP50Seconds: near(120), confirmationRate: 0.8 });
    const viaGraphql = await graphqlStats(graphql(shop.keys.test), {
      from: "2026-03-01T00:00:00+03:00",
      to: "2026-03-04T00:00:00+03:00",
      timeZone: "Asia/Riyadh",
    });
    expect(asRest(viaGraphql)).toEqual(stats);
  });

  it("gives a DST day its 23 hours: America/New_York on 2026-03-08", async () => {
    const stats = await restStats(dst.test, {
      from: "2026-03-07T00:00:00-05:00",
      to: "2026-03-10T00:00:00-04:00",
      timeZone: "America/New_York",
    });
    expect(stats.buckets.map((bucket: any) => [bucket.start, bucket.created])).toEqual([
      ["2026-03-07T05:00:00.000Z", 0],
      ["2026-03-08T05:00:00.000Z", 3], // D-1, D-2, D-3: local midnight EST to local midnight EDT
      ["2026-03-09T04:00:00.000Z", 1], // D-4
    ]);
  });

  it("counts hours across the DST change without a missing or doubled hour", async () => {
    const stats = await graphqlStats(graphql(dst.keys.test), {
      from: "2026-03-08T00:00:00-05:00",
      to: "2026-03-08T06:00:00-04:00",
      timeZone: "America/New_York",
      interval: "HOUR",
    });
    expect(stats.interval).toBe("HOUR");
    expect(stats.buckets.map((bucket: any) => [bucket.start, bucket.created])).toEqual([
      ["2026-03-08T05:00:00.000Z", 0], // 00:00 EST
      ["2026-03-08T06:00:00.000Z", 1], // 01:00 EST: D-1
      ["2026-03-08T07:00:00.000Z", 1], // 03:00 EDT: D-2
      ["2026-03-08T08:00:00.000Z", 0],
      ["2026-03-08T09:00:00.000Z", 0],
    ]);
    expect(stats.totals.created).toBe(2);
  });

  it("buckets by HOUR from the local hour that holds `from`: UTC, and Asia/Kolkata's half-hour offset", async () => {
    const utc = await restStats(shop.test, { from: "2026-03-01T10:15:00Z", to: "2026-03-01T13:00:00Z", interval: "hour" });
    expect(utc.interval).toBe("hour");
    expect(utc.buckets.map((bucket: any) => [bucket.start, bucket.created, bucket.timeToAnswerP50Seconds])).toEqual([
      ["2026-03-01T10:00:00.000Z", 0, null], // A-1 at 10:00 is before `from`
      ["2026-03-01T11:00:00.000Z", 1, near(300)],
      ["2026-03-01T12:00:00.000Z", 1, near(120)],
    ]);
    const kolkata = await restStats(shop.test, {
      from: "2026-03-01T10:00:00Z", // 15:30 IST: its hour starts at 15:00 IST, 09:30Z
      to: "2026-03-01T12:00:00Z",
      timeZone: "Asia/Kolkata",
      interval: "hour",
    });
    expect(kolkata.buckets.map((bucket: any) => [bucket.start, bucket.created])).toEqual([
      ["2026-03-01T09:30:00.000Z", 1],
      ["2026-03-01T10:30:00.000Z", 1],
      ["2026-03-01T11:30:00.000Z", 0],
    ]);
  });

  it("serves the longest ranges: 366 days by DAY, 31 days (744 hours) by HOUR", async () => {
    const year = await restStats(shop.test, { from: "2025-06-01T00:00:00Z", to: "2026-06-02T00:00:00Z" });
    expect(year.buckets).toHaveLength(366);
    expect(year.totals.created).toBe(13); // every visible test-mode order of the shop
    const month = await restStats(shop.test, { from: "2026-02-15T00:00:00Z", to: "2026-03-18T00:00:00Z", interval: "hour" });
    expect(month.buckets).toHaveLength(744);
    expect(month.buckets.reduce((sum: number, bucket: any) => sum + bucket.created, 0)).toBe(13);
  });
});

describe("orderStats refusals", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["from after to", { from: "2026-03-04T00:00:00Z", to: "2026-03-01T00:00:00Z" }, "to"],
    ["from equal to to", { from: "2026-03-01T00:00:00Z", to: "2026-03-01T00:00:00Z" }, "to"],
    ["367 days by day", { from: "2025-01-01T00:00:00Z", to: "2026-01-03T00:00:00Z" }, "to"],
    ["32 days by hour", { from: "2026-01-01T00:00:00Z", to: "2026-02-02T00:00:00Z", interval: "hour" }, "to"],
    ["an unknown zone", { ...UTC_RANGE, timeZone: "Mars/Olympus_Mons" }, "timeZone"],
    ["a NUL in the zone", { ...UTC_RANGE, timeZone: "Asia/Riyadh\u0000" }, "timeZone"],
    ["a POSIX zone string", { ...UTC_RANGE, timeZone: "UTC+3; DROP TABLE orders" }, "timeZone"],
    ["a bad interval", { ...UTC_RANGE, interval: "week" }, "interval"],
    ["a date without offset", { from: "2026-03-01T00:00:00", to: "2026-03-04T00:00:00Z" }, "from"],
    ["a NUL in a date", { from: "2026-03-01T00:00:00Z\u0000", to: "2026-03-04T00:00:00Z" }, "from"],
  ];

  it.each(cases)("REST answers 400 VALIDATION_ERROR for %s", async (_name, params, field) => {
    const response = await rest(shop.test, params);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: "VALIDATION_ERROR", errorCode: null });
    expect(response.body.details.map((detail: any) => detail.field)).toEqual([field]);
  });

  it("REST needs from and to, and localises the problem", async () => {
    const response = await rest(shop.test, {}, { "accept-language": "ar" });
    expect(response.status).toBe(400);
    expect(response.body.details.map((detail: any) => detail.field).sort()).toEqual(["from", "to"]);
    expect(response.body.details[0].message).toBe("حقل مطلوب");
    const tooLong = await rest(shop.test, { from: "2026-01-01T00:00:00Z", to: "2026-02-02T00:00:00Z", interval: "hour" }, { "accept-language": "ar" });
    expect(tooLong.body.details[0].message).toBe("يجب ألا يتجاوز 31 يومًا بعد from (الفاصل hour)");
    const english = await rest(shop.test, { from: "2026-01-01T00:00:00Z", to: "2026-02-02T00:00:00Z", interval: "hour" });
    expect(english.body.details[0].message).toBe("must be at most 31 days after from (interval hour)");
  });

  it.each(cases.filter(([, params]) => !params.interval))("GraphQL answers BAD_USER_INPUT for %s", async (_name, params, field) => {
    const response = await graphql(shop.keys.test).query(STATS_QUERY, params);
    expect(response.body.data ?? null).toBeNull();
    expect(response.body.errors).toHaveLength(1);
    const [error] = response.body.errors!;
    // Dates are checked by the DateTime scalar before the resolver runs; the rest by the shared rules.
    if (field === "from") expect(error.extensions?.code).toBe("BAD_USER_INPUT");
    // A NUL in any variable is refused before execution by the storability guard, naming the variable.
    else if (JSON.stringify(params).includes("\\u0000")) expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", field: ["variables", field] });
    else {
      expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT" });
      expect(error.extensions?.details.map((detail: any) => detail.field)).toEqual([[field]]);
    }
  });

  it("GraphQL refuses 32 days by HOUR and an unknown interval", async () => {
    const tooLong = await graphql(shop.keys.test).query(STATS_QUERY, {
      from: "2026-01-01T00:00:00Z", to: "2026-02-02T00:00:00Z", interval: "HOUR",
    });
    expect(tooLong.body.errors?.[0].extensions).toMatchObject({ code: "BAD_USER_INPUT", details: [{ field: ["to"] }] });
    const week = await graphql(shop.keys.test).query(STATS_QUERY, { ...UTC_RANGE, interval: "WEEK" });
    expect(week.body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("needs a key", async () => {
    expect((await rest(server.api, UTC_RANGE)).status).toBe(401);
    const response = await new GraphQLClient(server.baseUrl).query(STATS_QUERY, UTC_RANGE);
    expect(response.body.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("orderStats of orders answered through the service", () => {
  it("times the customer's tap as its timeline step, and leaves the merchant's cancel out of the answers", async () => {
    const fresh = await server.merchant("Live Flow Shop");
    const place = async () => {
      const response = await fresh.test.post("/api/v1/orders", orderInput());
      expect(response.status, response.text).toBe(201);
      return response.body;
    };
    const approved = await place();
    const declined = await place();
    const withdrawn = await place();
    await place(); // stays pending
    expect((await fresh.test.post(`/api/v1/test/orders/${approved.id}/customer-action`, { action: "approve" })).status).toBe(200);
    expect((await fresh.test.post(`/api/v1/test/orders/${declined.id}/customer-action`, { action: "cancel" })).status).toBe(200);
    expect((await fresh.test.delete(`/api/v1/orders/${withdrawn.id}`)).status).toBe(200);
    // A late delivery report after the answer changes nothing (the tap already made the order READ).
    await fresh.test.post(`/api/v1/test/orders/${approved.id}/delivery`, { status: "delivered" });

    const secondsToAnswer = async (order: any, kind: string) => {
      const timeline = (await fresh.test.get(`/api/v1/orders/${order.id}/timeline`)).body.data;
      const step = timeline.find((entry: any) => entry.kind === kind && entry.source === "customer");
      expect(step, JSON.stringify(timeline)).toBeDefined();
      return (Date.parse(step.at) - Date.parse(order.createdAt)) / 1000;
    };
    const times = [await secondsToAnswer(approved, "approved"), await secondsToAnswer(declined, "canceled")].sort((a, b) => a - b);
    const range = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() };
    const stats = await restStats(fresh.test, range);
    expect(stats.totals).toMatchObject({
      created: 4, confirmed: 1, canceled: 2, pending: 1, answered: 2, confirmationRate: 0.5, answerRate: 0.5,
    });
    // From the histograms: within their error of the exact percentiles, reported with millisecond precision.
    expect(stats.totals.timeToAnswerP50Seconds).toEqual(near((times[0] + times[1]) / 2));
    expect(stats.totals.timeToAnswerP90Seconds).toEqual(near(times[0] + 0.9 * (times[1] - times[0])));
  });

  it("counts an answer the team recorded from a call (approve or cancel) as the customer's, kept and exact alike", async () => {
    const fresh = await server.merchant("Phone Desk Shop");
    const place = async () => {
      const response = await fresh.test.post("/api/v1/orders", orderInput());
      expect(response.status, response.text).toBe(201);
      return response.body;
    };
    const approvedByPhone = await place();
    const canceledInPerson = await place();
    const withdrawn = await place();
    const record = (order: any, action: string, channel: string) =>
      fresh.test.post(`/api/v1/orders/${order.id}/customer-answer`, { action, channel });
    expect((await record(approvedByPhone, "approve", "phone")).status).toBe(200);
    expect((await record(canceledInPerson, "cancel", "in_person")).status).toBe(200);
    expect((await fresh.test.delete(`/api/v1/orders/${withdrawn.id}`)).status).toBe(200);

    const range = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() };
    const stats = await restStats(fresh.test, range);
    expect(stats.totals).toMatchObject({ created: 3, confirmed: 1, canceled: 2, pending: 0, answered: 2, confirmationRate: 0.5 });
    expect(stats.totals.answerRate).toBe(0.6667); // rates are given to four decimal places
    // The maintained buckets agree with the orders table (`ocs stats verify`'s exact computation).
    const verifier = new OrderStatsVerifier(server.app.services.database.pool);
    expect((await verifier.verify(fresh.id, { repair: false })).mismatches).toEqual([]);
  });
});

describe("orderStats for console users", () => {
  it("lets a viewer read the figures of the session's mode", async () => {
    const viewer = await consoleSession(server, shop.id, "viewer");
    const test = await graphqlStats(viewer.graphql, UTC_RANGE);
    expect(asRest(test)).toEqual(await restStats(shop.test, UTC_RANGE));
    const live = await graphqlStats(viewer.live, UTC_RANGE);
    expect(live.totals.created).toBe(1);
  });
});
