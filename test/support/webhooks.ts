import { randomBytes } from "node:crypto";
import { newId } from "../../src/domain/ids.ts";
import type { ApiClient } from "./api.ts";
import type { TestServer } from "./server.ts";

export const ALL_EVENTS = ["order.created", "order.confirmed", "order.canceled", "order.failed", "order.expired"];

export const newWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[];
  secret: string;
  legacySignature?: boolean;
}

/** Registers an endpoint through the public API, as a merchant would. */
export async function createEndpoint(
  client: ApiClient,
  input: { url: string; events?: string[]; legacySignature?: boolean },
): Promise<CreatedEndpoint> {
  const response = await client.post("/api/v1/webhook-endpoints", input);
  if (response.status !== 201) throw new Error(`endpoint not created: ${response.status} ${response.text}`);
  return response.body;
}

/**
 * Writes an endpoint row directly, for states the API would refuse or cannot reach quickly (a URL that resolves
 * to loopback while private URLs are not allowed, a secret rotation in progress).
 */
export async function insertEndpoint(
  server: TestServer,
  merchantId: string,
  input: { url: string; mode?: "live" | "test"; events?: string[]; secret?: string; previousSecret?: string; enabled?: boolean },
): Promise<CreatedEndpoint> {
  const now = new Date();
  const secret = input.secret ?? newWebhookSecret();
  const row = await server.app.services.database.prisma.webhookEndpoint.create({
    data: {
      id: newId(),
      merchantId,
      mode: input.mode ?? "test",
      url: input.url,
      events: input.events ?? ALL_EVENTS,
      enabled: input.enabled ?? true,
      secret,
      previousSecret: input.previousSecret ?? null,
      previousSecretExpiresAt: input.previousSecret ? new Date(now.getTime() + 60 * 60 * 1000) : null,
      createdAt: now,
      updatedAt: now,
    },
  });
  return { id: row.id, url: row.url, events: row.events, secret };
}

/** The outbox payload of an event exactly as stored (`payload::text`): the bytes a delivery must carry. */
export async function storedPayload(server: TestServer, eventId: string): Promise<string> {
  const { rows } = await server.app.services.database.pool.query<{ text: string }>(
    "SELECT payload::text AS text FROM order_events WHERE id = $1",
    [eventId],
  );
  return rows[0].text;
}

/** The delivery rows of one order (any endpoint), oldest event first. */
export function deliveriesOf(server: TestServer, orderId: string) {
  return server.app.services.database.prisma.webhookDelivery.findMany({
    where: { orderId },
    orderBy: [{ eventSequence: "asc" }, { endpointId: "asc" }],
    include: { attempts: { orderBy: { attemptedAt: "asc" } } },
  });
}

/** Polls `read` until `done` holds (for state the receiver cannot see, e.g. a delivery turning dead). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms: ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
