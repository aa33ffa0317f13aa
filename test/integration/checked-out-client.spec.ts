import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { withCheckedOutClient } from "../../src/db/checked-out-client.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { usingPostgres } from "../support/database.ts";

/**
 * A checked-out client whose connection the server ends between two statements (pg_terminate_backend, as a failover
 * or an administrator would) fails its next statement instead of crashing the process with an unhandled 'error'
 * event (vitest reports such an event as an error of the run), and is not handed to the next caller. PostgreSQL
 * only: the embedded engine's connections share one session and cannot be terminated one by one.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe.skipIf(!usingPostgres)("a checked-out client whose connection is terminated between statements", () => {
  it("fails the next statement, crashes nothing, and is destroyed, not reused", async () => {
    const { pool } = server.app.services.database;
    const admin = new pg.Client({ connectionString: server.app.services.database.url });
    await admin.connect();
    let terminatedPid = 0;
    try {
      const failure = await withCheckedOutClient(pool, async (client) => {
        await client.query("BEGIN");
        terminatedPid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
        await admin.query("SELECT pg_terminate_backend($1)", [terminatedPid]);
        // Idle in its transaction while the server ends it: the FATAL message arrives with no statement running.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return client.query("SELECT 1").then(
          () => null,
          (error: Error) => error,
        );
      });
      expect(failure).toBeInstanceOf(Error);
    } finally {
      await admin.end();
    }
    // The pool serves the next caller from another (new) connection.
    const { rows } = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(rows[0].pid).not.toBe(terminatedPid);
  });
});
