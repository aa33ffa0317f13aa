import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded-postgres.ts";

/** The embedded engine is one session behind a socket: concurrent connections must not corrupt each other. */
let embedded: EmbeddedPostgres;

beforeAll(async () => {
  embedded = await startEmbeddedPostgres({ dataDir: null, ownerIdleLimitMs: 500 });
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  await client.query("CREATE TABLE t (id int PRIMARY KEY, v text)");
  await client.end();
});
afterAll(() => embedded?.stop());

describe("SessionAwareQueue", () => {
  it("keeps concurrent connections' parameterised statements and transactions apart", async () => {
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: embedded.url, max: 4 }));
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const pool = pools[i % 2];
          if (i % 5 === 0) {
            const client = await pool.connect();
            try {
              await client.query("BEGIN");
              await client.query("INSERT INTO t VALUES ($1, $2)", [i, `v${i}`]);
              const { rows } = await client.query("SELECT v FROM t WHERE id = $1", [i]);
              await client.query("COMMIT");
              return rows[0]?.v === `v${i}`;
            } finally {
              client.release();
            }
          }
          const { rows } = await pool.query("SELECT $1::int AS a, $2::text AS b", [i, `x${i}`]);
          return rows[0].a === i && rows[0].b === `x${i}`;
        }),
      );
      expect(results.every(Boolean)).toBe(true);
      expect((await pools[0].query("SELECT count(*)::int AS n FROM t")).rows[0].n).toBe(40);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it("rolls back and cuts off a connection that holds a transaction idle while others wait", async () => {
    const idle = new pg.Client({ connectionString: embedded.url });
    idle.on("error", () => undefined);
    await idle.connect();
    await idle.query("BEGIN");
    await idle.query("INSERT INTO t VALUES (1000, 'never committed')");
    const other = new pg.Client({ connectionString: embedded.url });
    const started = Date.now();
    await other.connect();
    const { rows } = await other.query("SELECT count(*)::int AS n FROM t WHERE id = 1000");
    expect(rows[0].n).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    await expect(idle.query("COMMIT")).rejects.toThrow();
    await other.end();
    await idle.end().catch(() => undefined);
  });

  it("rolls back the transaction of a connection that disconnects", async () => {
    const leaver = new pg.Client({ connectionString: embedded.url });
    await leaver.connect();
    await leaver.query("BEGIN");
    await leaver.query("INSERT INTO t VALUES (2000, 'left behind')");
    await leaver.end();
    const other = new pg.Client({ connectionString: embedded.url });
    await other.connect();
    const { rows } = await other.query("SELECT count(*)::int AS n FROM t WHERE id = 2000");
    expect(rows[0].n).toBe(0);
    await other.query("INSERT INTO t VALUES (2001, 'fine')");
    await other.end();
  });
});
