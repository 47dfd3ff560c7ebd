import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { checkEmbeddingDimension, loadMigrations, migrate } from '../../schema/migrate.ts';
import { SchemaMismatchError } from '../../lib/errors.ts';
import { createEmptyDatabase, databaseUrl, dropDatabase } from '../support/db.ts';

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

describe('migrations', () => {
  const created: string[] = [];
  after(async () => {
    for (const name of created) await dropDatabase(name);
  });

  it('start at V1, ascending, each number once', () => {
    const versions = loadMigrations().map((m) => m.version);
    assert.equal(versions[0], 1);
    for (let i = 1; i < versions.length; i++) assert.ok(versions[i]! > versions[i - 1]!);
  });

  it('apply on an empty database, and a second run is a no-op', async () => {
    const name = await createEmptyDatabase();
    created.push(name);
    const url = databaseUrl(name);
    const versions = loadMigrations().map((m) => m.version);
    const first = await migrate(url);
    assert.deepEqual(first.applied, versions);
    assert.equal(first.current, versions.at(-1));
    const second = await migrate(url);
    assert.deepEqual(second.applied, []);
    const rows = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM schema_migrations');
    assert.equal(rows[0]?.n, String(versions.length));
    const tables = await query<{ t: string }>(
      url,
      `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    for (const t of [
      'content_chunks',
      'events',
      'file_content_chunks',
      'file_contents',
      'file_records',
      'schedules',
      'source_secrets',
      'sources',
      'sync_files',
      'sync_issues',
      'sync_runs',
    ]) {
      assert.ok(
        tables.some((r) => r.t === t),
        `table ${t} exists`,
      );
    }
    const labels = await query<{ name: string; kind: string }>(
      url,
      `SELECT l.name, l.kind FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
        WHERE g.name = 'service' AND l.name NOT LIKE '\\_ag%' ORDER BY 1`,
    );
    assert.deepEqual(labels, [
      { name: 'File', kind: 'v' },
      { name: 'Symbol', kind: 'v' },
      { name: 'calls', kind: 'e' },
      { name: 'defines', kind: 'e' },
      { name: 'depends_on', kind: 'e' },
      { name: 'implements', kind: 'e' },
      { name: 'inherits', kind: 'e' },
      { name: 'overrides', kind: 'e' },
      { name: 'references', kind: 'e' },
    ]);
  });

  it('two runners started at once both succeed and apply each migration once', async () => {
    const name = await createEmptyDatabase();
    created.push(name);
    const url = databaseUrl(name);
    const [a, b] = await Promise.all([migrate(url), migrate(url)]);
    const all = [...a.applied, ...b.applied].sort((x, y) => x - y);
    const versions = loadMigrations().map((m) => m.version);
    assert.deepEqual(all, versions, 'every migration applied exactly once across both');
    assert.ok(a.applied.length === 0 || b.applied.length === 0, 'one runner did all the work, the other waited');
    const rows = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM schema_migrations');
    assert.equal(rows[0]?.n, String(versions.length));
  });

  it('refuses to run when an applied migration was edited', async () => {
    const name = await createEmptyDatabase();
    created.push(name);
    const url = databaseUrl(name);
    await migrate(url);
    await query(url, `UPDATE schema_migrations SET checksum = 'x' WHERE version = 3`);
    await assert.rejects(
      migrate(url),
      (err: unknown) => err instanceof SchemaMismatchError && /V3__schedules/.test(err.message),
    );
  });

  describe('embedding dimension check', () => {
    let url = '';
    before(async () => {
      const name = await createEmptyDatabase();
      created.push(name);
      url = databaseUrl(name);
      await migrate(url);
    });

    it('accepts a match: the last migration leaves every vector column at 896', async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const cols = await checkEmbeddingDimension(c, 896);
        assert.deepEqual(cols, [
          { table: 'file_content_chunks', column: 'embedding', declared: 896 },
          { table: 'file_content_chunks', column: 'key_embedding', declared: 896 },
          { table: 'file_contents', column: 'embedding', declared: 896 },
        ]);
      } finally {
        await c.end();
      }
    });

    it('refuses EMBEDDING_DIM that differs from the schema', async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await assert.rejects(
          checkEmbeddingDimension(c, 768),
          (err: unknown) =>
            err instanceof SchemaMismatchError &&
            /EMBEDDING_DIM=768/.test(err.message) &&
            /vector\(896\)/.test(err.message),
        );
      } finally {
        await c.end();
      }
    });

    it('refuses a schema whose column was changed to another dimension', async () => {
      // The spec-shaped views (V12) depend on the column: a migration changing it recreates them.
      await query(url, 'DROP VIEW file_records');
      await query(url, 'DROP INDEX file_contents_embedding_hnsw');
      await query(url, 'ALTER TABLE file_contents ALTER COLUMN embedding TYPE vector(768)');
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await assert.rejects(
          checkEmbeddingDimension(c, 896),
          (err: unknown) =>
            err instanceof SchemaMismatchError && /file_contents\.embedding is vector\(768\)/.test(err.message),
        );
      } finally {
        await c.end();
      }
    });
  });
});
