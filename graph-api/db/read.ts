/**
 * Graph reads under a wall-clock cap (GRAPH_QUERY_TIMEOUT_SECONDS). Each request runs its queries in one read-only
 * transaction; before every statement the remaining time of the request's budget becomes the statement_timeout, so
 * the cap holds for the request as a whole, not per statement. A cancelled statement becomes 504 TIMEOUT.
 */
import type pg from 'pg';
import type { Pool } from '../../lib/db.ts';
import { TimeoutError } from '../../lib/errors.ts';

/** SQLSTATE of a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';

export interface ReadTx {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export function isQueryCanceled(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === QUERY_CANCELED;
}

export async function withReadTx<T>(pool: Pool, capMs: number, fn: (tx: ReadTx) => Promise<T>): Promise<T> {
  const deadline = Date.now() + capMs;
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN READ ONLY');
    const tx: ReadTx = {
      async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
        const remaining = Math.max(1, deadline - Date.now());
        await client.query(`SELECT set_config('statement_timeout', $1, true)`, [String(remaining)]);
        return client.query<R>(sql, params);
      },
    };
    const result = await fn(tx);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    if (isQueryCanceled(err)) {
      throw new TimeoutError(`the graph query exceeded ${capMs} ms (GRAPH_QUERY_TIMEOUT_SECONDS)`, { cause: err });
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
