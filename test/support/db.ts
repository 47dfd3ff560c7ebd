/**
 * Real PostgreSQL for tests: each test file gets a database of its own, cloned from a template migrated once per
 * set of migrations (CREATE DATABASE ... TEMPLATE is a file copy: milliseconds, not a migration run).
 */
import { randomBytes, createHash } from 'node:crypto';
import pg from 'pg';
import { createPool, type Pool } from '../../lib/db.ts';
import { loadMigrations, migrate } from '../../schema/migrate.ts';
import { testEnv } from './env.ts';
import { waitFor } from './wait.ts';

const TEMPLATE_LOCK = 7_301_202_612;

export function databaseUrl(name: string): string {
  const u = new URL(testEnv.databaseUrl);
  u.pathname = '/' + name;
  return u.toString();
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function templateName(): string {
  const h = createHash('sha256');
  for (const m of loadMigrations()) h.update(m.checksum);
  return 'ckg_tmpl_' + h.digest('hex').slice(0, 12);
}

/** Creates an empty database (no migrations) and returns its name. */
export async function createEmptyDatabase(prefix = 'ckg_test'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  return name;
}

async function ensureTemplate(): Promise<string> {
  const tmpl = templateName();
  await withAdmin(async (c) => {
    await c.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [tmpl]);
      if (exists.rowCount === 0) {
        await c.query(`CREATE DATABASE ${tmpl}_wip`);
        await migrate(databaseUrl(`${tmpl}_wip`));
        await c.query(`ALTER DATABASE ${tmpl}_wip RENAME TO ${tmpl}`);
        await c.query(`ALTER DATABASE ${tmpl} IS_TEMPLATE true`);
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return tmpl;
}

export interface TestDatabase {
  name: string;
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A migrated database of this test's own, with a pool. Call drop() in after(). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const tmpl = await ensureTemplate();
  const name = `ckg_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (c) => {
    await c.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      await c.query(`CREATE DATABASE ${name} TEMPLATE ${tmpl}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  const url = databaseUrl(name);
  const pool = createPool(url, { max: 20, applicationName: 'ckg-test' });
  return {
    name,
    url,
    pool,
    drop: async () => {
      await pool.end();
      await dropDatabase(name);
    },
  };
}

export async function dropDatabase(name: string): Promise<void> {
  if (process.env.KEEP_TEST_DB === '1') return;
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Waits until a session of the current database waits on a lock (`where`: an extra SQL condition on
 * pg_stat_activity, e.g. its application_name or query); fails with `message` after `timeoutMs`.
 */
export async function waitForLockWait(
  db: Pick<Pool, 'query'>,
  where: string,
  message: string,
  timeoutMs = 20_000,
  everyMs = 20,
): Promise<void> {
  await waitFor(
    message,
    async () => {
      const w = await db.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND (${where})`,
      );
      return (w.rowCount ?? 0) > 0;
    },
    timeoutMs,
    everyMs,
  );
}
