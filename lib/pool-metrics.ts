/**
 * Metrics of every database pool made by createPool, by pool name (its application_name: ckg-graph-api,
 * ckg-ingestion, ckg-worker, ckg-gateway-events, ...):
 * - `ckg_db_pool_connections{pool,state}`: open connections, `in_use` or `idle`, read at scrape time;
 * - `ckg_db_pool_waiting{pool}`: callers waiting for a connection, at scrape time;
 * - `ckg_db_pool_acquire_seconds{pool}`: how long a caller waited for a connection (pool.connect and pool.query);
 * - `ckg_db_pool_acquire_errors_total{pool}`: connections that could not be given (connect failure, timeout).
 */
import type pg from 'pg';
import { counter, gauge, histogram, secondsSince } from './metrics.ts';

const pools = new Set<{ name: string; pool: pg.Pool }>();

gauge('ckg_db_pool_connections', 'Open database connections of a pool, in use or idle', ['pool', 'state'], (g) => {
  g.reset();
  for (const { name, pool } of pools) {
    g.inc({ pool: name, state: 'in_use' }, pool.totalCount - pool.idleCount);
    g.inc({ pool: name, state: 'idle' }, pool.idleCount);
  }
});
gauge('ckg_db_pool_waiting', 'Callers waiting for a database connection', ['pool'], (g) => {
  g.reset();
  for (const { name, pool } of pools) g.inc({ pool: name }, pool.waitingCount);
});
const acquire = histogram('ckg_db_pool_acquire_seconds', 'Time a caller waited for a database connection', ['pool']);
const acquireErrors = counter('ckg_db_pool_acquire_errors_total', 'Database connections a pool could not give', [
  'pool',
]);

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/** Counts the pool in the gauges until it is ended, and times every connection it hands out. */
export function instrumentPool(pool: pg.Pool, name: string): void {
  const entry = { name, pool };
  pools.add(entry);
  const end = pool.end.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { end: unknown }).end = (...args: unknown[]) => {
    pools.delete(entry);
    return end(...args);
  };
  const connect = pool.connect.bind(pool) as (cb?: ConnectCallback) => Promise<pg.PoolClient> | undefined;
  const observe = (started: number, err: unknown) => {
    if (err) acquireErrors.inc({ pool: name });
    else acquire.observe({ pool: name }, secondsSince(started));
  };
  // pool.query calls this.connect(callback): both forms are timed.
  (pool as { connect: unknown }).connect = (cb?: ConnectCallback) => {
    const started = performance.now();
    if (typeof cb === 'function') {
      return connect((err, client, done) => {
        observe(started, err);
        cb(err, client, done);
      });
    }
    return connect()!.then(
      (client) => {
        observe(started, undefined);
        return client;
      },
      (err: unknown) => {
        observe(started, err);
        throw err;
      },
    );
  };
}
