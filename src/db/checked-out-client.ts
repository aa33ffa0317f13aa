import type pg from "pg";

/**
 * Runs `work` on a client checked out of `pool`, for statements that must share one session (a transaction).
 *
 * While a client is checked out the pool no longer listens to its errors. A connection the server ends between two
 * statements (a failover, `pg_terminate_backend`, a restart) then makes the client emit an `error` event that
 * nobody handles, which crashes the process. Here the error is noted instead: the next statement fails (pg refuses
 * a broken client), `work` sees that failure as it would any other, and the client is destroyed on release rather
 * than handed to the next caller.
 */
export async function withCheckedOutClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const noteBroken = (error: Error) => {
    broken = error;
  };
  client.on("error", noteBroken);
  try {
    return await work(client);
  } finally {
    client.off("error", noteBroken);
    client.release(broken);
  }
}
