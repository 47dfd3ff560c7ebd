/**
 * Graph reads under a wall-clock cap (GRAPH_QUERY_TIMEOUT_SECONDS). Each request runs its queries in one read-only
 * transaction; before every statement the remaining time of the request's budget becomes the statement_timeout, so
 * the cap holds for the request as a whole, not per statement. A cancelled statement becomes 504 TIMEOUT.
 *
 * The transaction is REPEATABLE READ: all its statements read one snapshot, so a sync that retention (or an operator)
 * cleans or purges while a read is in flight is not removed under it: the read sees the sync as it was when it
 * began, whole (issue 30; docs/decisions.md "Retention"). A read-only transaction never fails to serialize.
 */
import type pg from 'pg';
import type { Pool } from '../../lib/db.ts';
import { TimeoutError } from '../../lib/errors.ts';

/** SQLSTATE of a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';

/** A statement: its text, or its text with a name (prepared once per connection, planned without re-parsing). */
export type Statement = string | { name: string; text: string };

export interface ReadTx {
  query<R extends pg.QueryResultRow>(sql: Statement, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export function isQueryCanceled(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === QUERY_CANCELED;
}

export async function withReadTx<T>(pool: Pool, capMs: number, fn: (tx: ReadTx) => Promise<T>): Promise<T> {
  const deadline = Date.now() + capMs;
  const remaining = () => String(Math.max(1, deadline - Date.now()));
  const client = await pool.connect();
  let broken = false;
  try {
    // One round trip: the transaction begins with the remaining budget as statement_timeout, which covers the first
    // statement; before each later statement the then remaining time is set again.
    await client.query(
      `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT set_config('statement_timeout', '${remaining()}', true)`,
    );
    let statements = 0;
    const tx: ReadTx = {
      async query<R extends pg.QueryResultRow>(sql: Statement, params: unknown[] = []) {
        if (statements++ > 0) {
          await client.query(`SELECT set_config('statement_timeout', $1, true)`, [remaining()]);
        }
        return typeof sql === 'string'
          ? client.query<R>(sql, params)
          : client.query<R>({ name: sql.name, text: sql.text, values: params });
      },
    };
    const result = await fn(tx);
    // The COMMIT of a read-only transaction changes nothing: it is not waited for. The connection goes back to the
    // pool once it is done (a client runs its queries in order, so nobody else can use it before).
    client.query('COMMIT').then(
      () => client.release(),
      (err: unknown) => client.release(err instanceof Error ? err : true),
    );
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    client.release(broken);
    if (isQueryCanceled(err)) {
      throw new TimeoutError(`the graph query exceeded ${capMs} ms (GRAPH_QUERY_TIMEOUT_SECONDS)`, { cause: err });
    }
    throw err;
  }
}

/**
 * The sync whose graph rows are `syncId`'s graph (schema V50): its own id, or the sync whose graph it shares (an
 * unchanged re-sync); null for a cleaned or unknown sync (no graph to read).
 */
export async function graphSyncOf(tx: ReadTx, syncId: string): Promise<string | null> {
  const r = await tx.query<{ g: string | null }>(
    { name: 'ckg_graph_sync_of', text: `SELECT graph_sync_of($1)::text AS g` },
    [syncId],
  );
  return r.rows[0]?.g ?? null;
}
