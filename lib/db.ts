/**
 * The database pool. Every connection is prepared for Apache AGE (LOAD 'age', ag_catalog on the search path after
 * public) so that both plain SQL and cypher() calls work on any client taken from the pool.
 */
import pg from 'pg';
import pgvector from 'pgvector';
import type { Logger } from './log.ts';
import { instrumentPool } from './pool-metrics.ts';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

export const AGE_SESSION_SQL = `LOAD 'age'; SET search_path = public, ag_catalog;`;

/**
 * Session settings sent with every connection's start-up packet. `jit = off`: the service's statements are short,
 * and AGE's label-table joins make the planner overestimate rows by orders of magnitude (759k estimated for 208
 * neighbours), which crossed jit_above_cost and spent 30-40 ms of CPU compiling expressions for a query that runs in
 * under 2 ms (node detail on the Go standard library: 38 ms of backend CPU per request with JIT, 1.6 ms without;
 * docs/benchmarks.md, issue 18).
 */
export const SESSION_OPTIONS = '-c jit=off';

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Run the AGE session set-up on each new connection (default true). */
  age?: boolean;
  /** statement_timeout in ms for every query of this pool (0 = none). */
  statementTimeoutMs?: number;
  /**
   * How long a caller waits for a connection (a free one or a new one) before the pool gives up with "timeout
   * exceeded when trying to connect" (answered 503 UNAVAILABLE with Retry-After). Default 10 s; never unbounded.
   */
  acquireTimeoutMs?: number;
  log?: Logger;
}

/**
 * A client that prepares its session for AGE right after connecting, before the pool hands it out (so the set-up
 * never races the caller's first query).
 */
class AgeClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
  override connect(callback?: (err: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
    const ready = super.connect().then(async () => {
      await this.query(AGE_SESSION_SQL);
      return this;
    });
    if (!callback) return ready;
    ready.then(
      (client) => callback(null, client),
      (err: Error) => callback(err),
    );
  }
}

export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;

export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  // A client not idle in the pool is not covered by the pool's idle listener: when PostgreSQL goes away under it (a
  // crash, an immediate shutdown), or when the pool gives up on it while it is still connecting (the acquire timeout
  // destroys its socket, e.g. during the AGE set-up on a loaded server), it emits 'error' on itself, which would end
  // the process. Its query or connect fails anyway and the pool drops it; the event only needs a listener and a log
  // line, from the moment the client exists.
  const Base = (options.age ?? true) ? AgeClient : pg.Client;
  class ListenedClient extends Base {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', (err) => options.log?.warning('db_client_error', { error: err }));
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'ckg',
    connectionTimeoutMillis: options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
    options: SESSION_OPTIONS,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    Client: ListenedClient,
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener Node would crash.
  pool.on('error', (err) => options.log?.warning('db_idle_client_error', { error: err }));
  instrumentPool(pool, options.applicationName ?? 'ckg');
  return pool;
}

/** The database answers a trivial query (through the pool: a pool with no connection to give does not). */
export async function ping(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT 1');
}

/** Runs fn inside BEGIN/COMMIT on one client; rolls back and rethrows on error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Runs fn under a savepoint of the open transaction `tx`: when fn answers null, what it wrote is rolled back to the
 * savepoint and the transaction goes on.
 */
export async function rolledBackIfNull<T>(
  tx: pg.PoolClient,
  savepoint: string,
  fn: () => Promise<T | null>,
): Promise<T | null> {
  await tx.query(`SAVEPOINT ${savepoint}`);
  const result = await fn();
  if (result === null) await tx.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
  return result;
}

/** PostgreSQL aborted the transaction to break a deadlock (40P01); running it again is safe. */
export function isDeadlock(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '40P01';
}

/**
 * withTransaction, run again (up to `attempts` times in all) when PostgreSQL picked it as a deadlock's victim: for
 * statements that cascade through rows background writers update in another order (deleting a source while its
 * sync's activities still write chunks and vectors). The transaction must be safe to repeat from the start.
 */
export async function withDeadlockRetry<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(pool, fn);
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
    }
  }
}

/** Quotes a value as an agtype string literal for SQL on AGE label tables, e.g. '"<uuid>"'. */
export function agString(value: string): string {
  return JSON.stringify(value);
}

/** pgvector's text form: '[0.1,0.2,...]' (pgvector's own serialiser). */
export function toVectorLiteral(values: ArrayLike<number>): string {
  return pgvector.toSql(Array.from(values)) as string;
}

/** Unique-violation check, e.g. for the one-active-sync index. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * Liveness of a pool: wedged when every connection is checked out and none has been handed out or given back for
 * `stuckMs` (a leak or a deadlock; the 14-summary wedge of issue 10 looked exactly so). A database that is down is not
 * a wedge: the pool then has no connections at all, and requests get 503 until it is back. Returns the reason when
 * wedged, undefined when alive.
 */
export function poolLiveness(pool: pg.Pool, stuckMs: number, now: () => number = Date.now): () => string | undefined {
  let lastProgress = now();
  const progress = () => {
    lastProgress = now();
  };
  pool.on('acquire', progress);
  pool.on('release', progress);
  pool.on('remove', progress);
  return () => {
    const max = pool.options.max;
    const saturated = pool.totalCount >= max && pool.idleCount === 0;
    const still = now() - lastProgress;
    if (!saturated || still < stuckMs) return undefined;
    return `all ${max} database connections have been checked out for ${Math.round(still / 1000)} s with none released`;
  };
}
