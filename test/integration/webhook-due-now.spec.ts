import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookDeliveryRepository } from "../../src/domain/webhooks/webhook-delivery.repository.ts";
import { orderInput } from "../support/fixtures.ts";
import {
  startTestServer,
  type TestMerchant,
  type TestServer,
} from "../support/server.ts";
import { createEndpoint } from "../support/webhooks.ts";

/**
 * "Due now" is never in the future: a delivery the fan-out just made (or a manual retry just made due) is claimable
 * by the very next statement. next_attempt_at is a timestamptz(3); storing now() rounded it to the nearest
 * millisecond, up to half a millisecond ahead, and the claim right after the fan-out then missed about one delivery
 * in four: it waited for the next event or the 1 s poll (bench:webhooks: p99 event → delivery 23 ms at 50 orders/s).
 * The service's own dispatcher is stopped: the test is the dispatcher, statement by statement.
 */
const ROUNDS = 40;
const LEASE_MS = 60_000;

let server: TestServer;
let shop: TestMerchant;
let deliveries: WebhookDeliveryRepository;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  await server.app.services.webhookDispatcher.stop();
  shop = await server.merchant();
  // Never called: nothing is sent, the claims are handed back.
  await createEndpoint(shop.test, {
    url: "http://127.0.0.1:9/hook",
    events: ["order.created"],
  });
  const { database } = server.app.services;
  deliveries = new WebhookDeliveryRepository(
    database.prisma,
    database.pool,
    database.prepareStatements,
  );
});
afterAll(async () => {
  await server?.close();
});

describe("a delivery due now", () => {
  it("is claimed by the statement right after the fan-out that made it, every time", async () => {
    const missed: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      expect(
        (await shop.test.post("/api/v1/orders", orderInput())).status,
      ).toBe(201);
      const fanned = await deliveries.fanOut(100, 5);
      expect(fanned.deliveries).toBe(1);
      const claims = await deliveries.claimDue(10, 10, new Map(), LEASE_MS);
      if (claims.length !== 1) missed.push(round);
      await deliveries.releaseLeases(claims);
      // Handed back and still due: the next round's claim would take it again, so it is finished here.
      await server.app.services.database.pool.query(
        "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id = ANY($1::uuid[])",
        [claims.map((claim) => claim.id)],
      );
    }
    expect(missed).toEqual([]);
  });

  it("is claimed by the statement right after a manual retry made it due, every time", async () => {
    const missed: number[] = [];
    for (let round = 0; round < ROUNDS / 2; round++) {
      const [finished] = (
        await server.app.services.database.pool.query<{ id: string }>(
          "SELECT id FROM webhook_deliveries WHERE merchant_id = $1 AND status = 'succeeded' ORDER BY created_at LIMIT 1 OFFSET $2",
          [shop.id, round],
        )
      ).rows;
      const retried = await shop.test.post(
        `/api/v1/webhook-deliveries/${finished.id}/retry`,
      );
      expect(retried.status).toBe(202);
      const claims = await deliveries.claimDue(10, 10, new Map(), LEASE_MS);
      if (!claims.some((claim) => claim.id === finished.id)) missed.push(round);
      await deliveries.releaseLeases(claims);
      await server.app.services.database.pool.query(
        "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id = ANY($1::uuid[])",
        [claims.map((claim) => claim.id)],
      );
    }
    expect(missed).toEqual([]);
  });
});
