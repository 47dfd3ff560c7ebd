/**
 * The migration runner. Migrations are schema/migrations/V<n>__<name>.sql, applied in numeric order, each in its own
 * transaction that first records itself in schema_migrations. A session-level advisory lock makes components that
 * start together take turns: the second waits, then finds nothing left to do.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SchemaMismatchError } from '../lib/errors.ts';
import type { Logger } from '../lib/log.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** Arbitrary constant naming the advisory lock every runner takes. */
const LOCK_KEY = 7_301_202_611;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const m = /^V(\d+)__([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) continue;
    const sql = readFileSync(dir + file, 'utf8');
    out.push({
      version: Number(m[1]),
      name: m[2] ?? '',
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  out.sort((a, b) => a.version - b.version);
  // Numbers are reserved per change being worked on in parallel (docs/decisions.md), so a gap is allowed until the
  // reserved one lands; two files with one number are not.
  out.forEach((m, i) => {
    if (i === 0 && m.version !== 1) throw new Error(`migrations must start at V1; found V${m.version} first`);
    if (i > 0 && m.version === out[i - 1]!.version)
      throw new Error(`two migrations are numbered V${m.version}: ${out[i - 1]!.name} and ${m.name}`);
  });
  return out;
}

export interface MigrateResult {
  applied: number[];
  current: number;
}

/** Applies every pending migration. Safe to call from several processes at once. */
export async function migrate(connectionString: string, log?: Logger): Promise<MigrateResult> {
  const migrations = loadMigrations();
  const client = new pg.Client({ connectionString, application_name: 'ckg-migrate' });
  await client.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    // AGE's functions need the library loaded and ag_catalog visible; public stays first so tables land there.
    await client.query(`LOAD 'age'`).catch(() => undefined);
    await client.query(`SET search_path = public, ag_catalog`);
    const done = new Map<number, string>();
    for (const row of (
      await client.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations')
    ).rows) {
      done.set(row.version, row.checksum);
    }
    for (const m of migrations) {
      const seen = done.get(m.version);
      if (seen !== undefined) {
        if (seen !== m.checksum) {
          throw new SchemaMismatchError(`migration V${m.version}__${m.name} was changed after it was applied`, {
            version: m.version,
          });
        }
        continue;
      }
      const started = Date.now();
      await client.query('BEGIN');
      try {
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query(m.sql);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(
          `migration V${m.version}__${m.name} failed: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      if (m.version === 1) {
        // The extension was just created in this session: load it so later migrations can use cypher and agtype.
        await client.query(`LOAD 'age'`);
      }
      applied.push(m.version);
      log?.info('migration_applied', { version: m.version, name: m.name, ms: Date.now() - started });
    }
    const last = migrations.at(-1)?.version ?? 0;
    return { applied, current: last };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

export interface DimensionReport {
  table: string;
  column: string;
  declared: number | null;
}

/** Declared dimensions of every vector column of the schema (null when a column has no fixed dimension). */
export async function embeddingDimensions(db: pg.Pool | pg.Client): Promise<DimensionReport[]> {
  const res = await db.query<{ table: string; column: string; typmod: number }>(
    `SELECT c.relname AS table, a.attname AS column, a.atttypmod AS typmod
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND t.typname = 'vector' AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY 1, 2`,
  );
  return res.rows.map((r) => ({ table: r.table, column: r.column, declared: r.typmod > 0 ? r.typmod : null }));
}

/** Refuses (throws SchemaMismatchError) when any embedding column's declared dimension differs from `expected`. */
export async function checkEmbeddingDimension(db: pg.Pool | pg.Client, expected: number): Promise<DimensionReport[]> {
  const columns = await embeddingDimensions(db);
  if (columns.length === 0) throw new SchemaMismatchError('no embedding columns found: has the schema been migrated?');
  const bad = columns.filter((c) => c.declared !== expected);
  if (bad.length > 0) {
    const list = bad.map((c) => `${c.table}.${c.column} is vector(${c.declared ?? 'unsized'})`).join(', ');
    throw new SchemaMismatchError(`embedding dimension mismatch: EMBEDDING_DIM=${expected} but ${list}`, {
      expected,
      columns: bad,
    });
  }
  return columns;
}
