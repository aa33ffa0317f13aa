import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  buildSchema,
  getNamedType,
  isLeafType,
  type GraphQLField,
  type GraphQLObjectType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SCHEMA_SDL } from "../../src/graphql/schema.ts";
import { roleMay } from "../../src/domain/users/permissions.ts";
import { connectWithCookie, consoleSession, type ConsoleSession } from "../support/console.ts";
import { orderInput } from "../support/fixtures.ts";
import { wsUrl } from "../support/graphql-ws.ts";
import { childEnvWithDatabase, runCli } from "../support/processes.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §15 role `agent` (and §10's viewer), enforced in one place (domain/users/permissions.ts, applied by
 * graphql/role-check.ts over HTTP and the websocket): every root field of the schema is tried as an agent, and
 * every one the agent must not reach is refused with FORBIDDEN before anything runs, the rest are not.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const schema = buildSchema(SCHEMA_SDL);

/** The fields an agent must reach (SPEC §15) that exist in this schema. */
const AGENT_ROOTS = new Set([
  "Query.viewer",
  "Query.order",
  "Query.orders",
  "Query.orderStats",
  "Mutation.recordCustomerAnswer",
  "Mutation.sendOrderMessage",
  "Mutation.markOrderMessagesRead",
  "Subscription.orderStatusChanged",
  "Subscription.orderMessageReceived",
]);

/**
 * A valid document selecting only `field` of `type`: every argument as a variable of its own type (so the document
 * validates whatever the argument), `{ __typename }` under objects.
 */
function documentFor(operation: "query" | "mutation" | "subscription", field: GraphQLField<unknown, unknown>): string {
  const variables = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`);
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`);
  const selection = isLeafType(getNamedType(field.type)) ? "" : " { __typename }";
  return `${operation} Probe${variables.length ? `(${variables.join(", ")})` : ""} { ${field.name}${args.length ? `(${args.join(", ")})` : ""}${selection} }`;
}

const fieldsOf = (type: GraphQLObjectType | null | undefined) => Object.values(type?.getFields() ?? {});

let server: TestServer;
let shopA: TestMerchant;
let shopB: TestMerchant;
let agent: ConsoleSession;
let viewer: ConsoleSession;
let admin: ConsoleSession;

beforeAll(async () => {
  server = await startTestServer();
  shopA = await server.merchant("Shop A");
  shopB = await server.merchant("Shop B");
  agent = await consoleSession(server, shopA.id, "agent");
  viewer = await consoleSession(server, shopA.id, "viewer");
  admin = await consoleSession(server, shopA.id, "admin");
});

afterAll(async () => {
  await server?.close();
});

describe("the agent role over GraphQL HTTP", () => {
  it("is AGENT in viewer, and the allow-list is what SPEC §15 names", async () => {
    const response = await agent.graphql.query("{ viewer { user { email role } merchant { id } mode } }");
    expect(response.status).toBe(200);
    expect(response.body.data.viewer).toEqual({ user: { email: agent.user.email, role: "AGENT" }, merchant: { id: shopA.id }, mode: "TEST" });
    for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of fieldsOf(type)) {
        const coordinate = `${type!.name}.${field.name}` as const;
        expect(roleMay("agent", coordinate), coordinate).toBe(AGENT_ROOTS.has(coordinate));
      }
    }
  });

  it("refuses every query and mutation field outside the follow-up desk with FORBIDDEN, and runs the rest", async () => {
    const probes = [
      ...fieldsOf(schema.getQueryType()).map((field) => ({ type: "Query", operation: "query" as const, field })),
      ...fieldsOf(schema.getMutationType()).map((field) => ({ type: "Mutation", operation: "mutation" as const, field })),
    ];
    expect(probes.length).toBeGreaterThan(15);
    let refused = 0;
    for (const { type, operation, field } of probes) {
      const response = await agent.graphql.query(documentFor(operation, field));
      const coordinate = `${type}.${field.name}`;
      const codes = (response.body.errors ?? []).map((error) => error.extensions?.code);
      if (AGENT_ROOTS.has(coordinate)) {
        expect(codes, coordinate).not.toContain("FORBIDDEN");
        expect(response.status, coordinate).toBeLessThan(500);
      } else {
        refused++;
        expect(response.status, `${coordinate}: ${response.text}`).toBe(403);
        expect(codes, coordinate).toEqual(["FORBIDDEN"]);
        expect(response.body.data ?? null, coordinate).toBeNull();
        expect(response.body.errors![0].message).toMatch(/agent/);
      }
    }
    // Keys, webhook endpoints and deliveries, the policy, the checklist; mutations of each.
    expect(refused).toBeGreaterThanOrEqual(14);
  });

  it("refuses an order's webhook deliveries, under an alias and in a fragment, and in Arabic", async () => {
    const created = await shopA.test.post("/api/v1/orders", orderInput());
    const direct = await agent.graphql.query(`query ($id: ID!) { order(id: $id) { id webhookDeliveries { id } } }`, { id: created.body.id });
    expect(direct.status).toBe(403);
    expect(direct.body.errors![0].extensions!.code).toBe("FORBIDDEN");
    const hidden = await agent.graphql.query(
      `query ($id: ID!) { order(id: $id) { ...Parts } } fragment Parts on Order { id sneaky: webhookDeliveries { id } }`,
      { id: created.body.id },
    );
    expect(hidden.status).toBe(403);
    const arabic = await agent.graphql.withHeaders({ "accept-language": "ar" }).query(`{ apiKeys { id } }`);
    expect(arabic.status).toBe(403);
    expect(arabic.body.errors![0].message).toMatch(/[\u0600-\u06FF]/);
    // A selection that will not run (the console asks for deliveries only when its user may read them) is no refusal.
    const conditional = `query ($id: ID!, $with: Boolean!) { order(id: $id) { id webhookDeliveries @include(if: $with) { id } } }`;
    expect((await agent.graphql.query(conditional, { id: created.body.id, with: false })).status).toBe(200);
    expect((await agent.graphql.query(conditional, { id: created.body.id, with: true })).status).toBe(403);
    const skipped = `query ($id: ID!, $skip: Boolean!) { order(id: $id) { id ... on Order @skip(if: $skip) { webhookDeliveries { id } } } }`;
    expect((await agent.graphql.query(skipped, { id: created.body.id, skip: true })).status).toBe(200);
    expect((await agent.graphql.query(skipped, { id: created.body.id, skip: false })).status).toBe(403);
    // What an agent does read: the order with its timeline.
    const allowed = await agent.graphql.query(`query ($id: ID!) { order(id: $id) { id status timeline { kind } } }`, { id: created.body.id });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.order.id).toBe(created.body.id);
  });

  it("admins reach everything; viewers no mutation (recordCustomerAnswer included)", async () => {
    const keys = await admin.graphql.query("{ apiKeys { id } gettingStarted { remaining } }");
    expect(keys.status).toBe(200);
    expect(keys.body.errors).toBeUndefined();
    const created = await shopA.test.post("/api/v1/orders", orderInput());
    const refused = await viewer.graphql.query(
      `mutation ($id: ID!) { recordCustomerAnswer(orderId: $id, action: APPROVE, channel: PHONE) { order { status } userErrors { code } } }`,
      { id: created.body.id },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.errors![0].extensions!.code).toBe("FORBIDDEN");
    for (const field of fieldsOf(schema.getMutationType())) {
      const response = await viewer.graphql.query(documentFor("mutation", field));
      expect(response.status, field.name).toBe(403);
    }
    const order = await server.api.withKey(shopA.keys.test).get(`/api/v1/orders/${created.body.id}`);
    expect(order.body.status).toBe("pending");
  });
});

describe("the agent role over the websocket", () => {
  it("refuses every subscription outside the desk and streams the order events it may see", async () => {
    const client = connectWithCookie(wsUrl(server), agent.cookie, { origin: server.baseUrl });
    try {
      for (const field of fieldsOf(schema.getSubscriptionType())) {
        const coordinate = `Subscription.${field.name}`;
        const outcome = await new Promise<{ errors?: readonly { extensions?: Record<string, unknown> }[]; data?: unknown }>((resolve) => {
          let settled = false;
          const unsubscribe = client.subscribe(
            { query: documentFor("subscription", field), variables: {} },
            {
              next: (result) => {
                if (!settled) (settled = true), resolve(result as never);
              },
              error: (error) => {
                if (!settled) (settled = true), resolve({ errors: Array.isArray(error) ? error : [{ extensions: { code: String(error) } }] });
              },
              complete: () => {
                if (!settled) (settled = true), resolve({});
              },
            },
          );
          // An allowed subscription stays open and silent: no refusal within a moment is the answer.
          setTimeout(() => {
            if (!settled) (settled = true), unsubscribe(), resolve({ data: "open" });
          }, 3_000);
        });
        if (AGENT_ROOTS.has(coordinate)) expect(outcome.data, coordinate).toBe("open");
        else expect(outcome.errors?.[0]?.extensions?.code, coordinate).toBe("FORBIDDEN");
      }
      // A subscription that selects webhookDeliveries inside the order is refused too.
      const refused = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: "subscription { orderStatusChanged { event order { id webhookDeliveries { id } } } }" },
          { next: resolve, error: resolve, complete: () => resolve("complete") },
        );
      });
      expect(JSON.stringify(refused)).toContain("FORBIDDEN");
    } finally {
      await client.dispose();
    }
  });
});

describe("an agent of merchant A never reaches merchant B", () => {
  it("reads, records and exports only its own merchant's orders", async () => {
    const ofB = await shopB.test.post("/api/v1/orders", orderInput());
    expect(ofB.status).toBe(201);
    const read = await agent.graphql.query(`query ($id: ID!) { order(id: $id) { id } }`, { id: ofB.body.id });
    expect(read.body.data.order).toBeNull();
    const list = await agent.graphql.query(`{ orders(first: 100) { edges { node { id } } } }`);
    expect(list.body.data.orders.edges.map((edge: any) => edge.node.id)).not.toContain(ofB.body.id);
    const recorded = await agent.graphql.query(
      `mutation ($id: ID!) { recordCustomerAnswer(orderId: $id, action: CANCEL, channel: PHONE, note: "x") { order { id } userErrors { code field } } }`,
      { id: ofB.body.id },
    );
    expect(recorded.status).toBe(200);
    expect(recorded.body.data.recordCustomerAnswer).toEqual({ order: null, userErrors: [{ code: "NOT_FOUND", field: ["orderId"] }] });
    const after = await shopB.test.get(`/api/v1/orders/${ofB.body.id}`);
    expect(after.body.status).toBe("pending");
    const exported = await fetch(new URL("/api/v1/orders/export", server.baseUrl), { headers: { cookie: agent.cookie } });
    expect(exported.status).toBe(200);
    expect(await exported.text()).not.toContain(ofB.body.id);
  });
});

describe("ocs users create --role agent", () => {
  it("creates an agent (and lists it)", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ocs-agent-cli-"));
    const { env, drop } = await childEnvWithDatabase({ DATA_DIR: dataDir });
    try {
      const merchant = await runCli(["merchants", "create", "--name", "Call centre shop", "--json"], env);
      expect(merchant.code, merchant.stderr).toBe(0);
      const merchantId = JSON.parse(merchant.stdout).merchant.id;
      const created = await runCli(
        ["users", "create", "--merchant", merchantId, "--email", "Agent@Example.com", "--role", "agent", "--json"],
        env,
        "a long enough password\n",
      );
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toEqual({ user: { id: expect.any(String), email: "agent@example.com", role: "agent", merchantId } });
      const listed = await runCli(["users", "list", "--merchant", merchantId], env);
      expect(listed.stdout).toMatch(/agent@example\.com\s+agent/);
      const wrong = await runCli(["users", "create", "--merchant", merchantId, "--email", "x@example.com", "--role", "boss", "--json"], env, "pw pw pw pw pw\n");
      expect(wrong.code).not.toBe(0);
    } finally {
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
