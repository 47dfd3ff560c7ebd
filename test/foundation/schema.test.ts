import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isUniqueViolation, withTransaction } from '../../lib/db.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { graphCounts, insertFile, insertGraph, insertSource, insertSync } from '../support/fixtures.ts';

describe('schema rules', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  describe('one active sync per source', () => {
    for (const [first, second] of [
      ['pending', 'pending'],
      ['pending', 'running'],
      ['running', 'running'],
    ] as const) {
      it(`rejects a ${second} sync while one is ${first}`, async () => {
        const source = await insertSource(db.pool);
        await insertSync(db.pool, source, first);
        await assert.rejects(insertSync(db.pool, source, second), (err) =>
          isUniqueViolation(err, 'sync_runs_one_active_per_source'),
        );
      });
    }

    it('allows a new active sync once the previous one ended, and any number of ended ones', async () => {
      const source = await insertSource(db.pool);
      const s1 = await insertSync(db.pool, source, 'running');
      await db.pool.query(`UPDATE sync_runs SET status = 'completed' WHERE id = $1`, [s1]);
      await insertSync(db.pool, source, 'failed');
      await insertSync(db.pool, source, 'cancelled');
      await insertSync(db.pool, source, 'pending');
      const other = await insertSource(db.pool);
      await insertSync(db.pool, other, 'running');
    });

    it('lets exactly one of 20 concurrent inserts win', async () => {
      const source = await insertSource(db.pool);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => insertSync(db.pool, source, 'pending')),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results)
        if (r.status === 'rejected') assert.ok(isUniqueViolation(r.reason, 'sync_runs_one_active_per_source'));
    });
  });

  it('enforces the unique keys of sources, schedules, file records and chunks', async () => {
    const source = await insertSource(db.pool, 'acme', 'dup');
    await assert.rejects(insertSource(db.pool, 'acme', 'dup'), (e) =>
      isUniqueViolation(e, 'sources_type_owner_name_key'),
    );
    await db.pool.query('INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 5)', [source]);
    await assert.rejects(
      db.pool.query('INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 5)', [source]),
      (e) => isUniqueViolation(e, 'schedules_source_interval_key'),
    );
    const sync = await insertSync(db.pool, source);
    const file = await insertFile(db.pool, sync, source, 'a.ts');
    await assert.rejects(insertFile(db.pool, sync, source, 'a.ts'), (e) =>
      isUniqueViolation(e, 'file_records_sync_path_key'),
    );
    const chunk = `INSERT INTO content_chunks (file_id, sync_id, chunk_index, content, start_line, end_line, chunk_type) VALUES ($1, $2, 0, 'x', 1, 1, 'line')`;
    await db.pool.query(chunk, [file, sync]);
    await assert.rejects(db.pool.query(chunk, [file, sync]), (e) =>
      isUniqueViolation(e, 'content_chunks_file_index_key'),
    );
  });

  it('applies the spec defaults', async () => {
    const r = await db.pool.query(`INSERT INTO sources (owner, name) VALUES ('d', 'defaults') RETURNING *`);
    const s = r.rows[0] as Record<string, unknown>;
    assert.equal(s.source_type, 'github_repo');
    assert.equal(s.default_branch, 'main');
    assert.deepEqual(s.config, {});
    assert.equal(s.enabled, true);
    assert.equal(s.last_sync_id, null);
    const sync = await insertSync(db.pool, s.id as string, 'pending');
    const run = (await db.pool.query('SELECT * FROM sync_runs WHERE id = $1', [sync])).rows[0] as Record<
      string,
      unknown
    >;
    assert.equal(run.progress_done, 0);
    assert.equal(run.progress_total, 0);
    const file = await insertFile(db.pool, sync, s.id as string, 'x/y.ts');
    const f = (await db.pool.query('SELECT * FROM file_records WHERE id = $1', [file])).rows[0] as Record<
      string,
      unknown
    >;
    assert.equal(f.status, 'healthy');
    assert.equal(f.domain, '');
    assert.deepEqual(f.exports, []);
    assert.equal(f.description_generated_at, null);
    assert.equal(f.embedding, null);
  });

  it('deleting a source removes its runs, issues, schedules, files, chunks, vertices and edges', async () => {
    const keep = await insertSource(db.pool);
    const keepSync = await insertSync(db.pool, keep);
    const kf1 = await insertFile(db.pool, keepSync, keep, 'k1.ts');
    const kf2 = await insertFile(db.pool, keepSync, keep, 'k2.ts');
    await insertGraph(db.pool, keepSync, keep, kf1, kf2);

    const source = await insertSource(db.pool);
    await db.pool.query('INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 60)', [source]);
    const syncs = [await insertSync(db.pool, source), await insertSync(db.pool, source, 'failed')];
    for (const sync of syncs) {
      const f1 = await insertFile(db.pool, sync, source, 'src/a.ts');
      const f2 = await insertFile(db.pool, sync, source, 'src/b.ts');
      await db.pool.query(
        `INSERT INTO content_chunks (file_id, sync_id, chunk_index, content, start_line, end_line, chunk_type) VALUES ($1, $2, 0, 'x', 1, 1, 'line')`,
        [f1, sync],
      );
      await db.pool.query(
        `INSERT INTO sync_issues (sync_id, level, phase, code, message) VALUES ($1, 'warning', 'parsing', 'c', 'm')`,
        [sync],
      );
      await insertGraph(db.pool, sync, source, f1, f2);
      assert.deepEqual(await graphCounts(db.pool, sync), { File: 2, Symbol: 1, depends_on: 1, defines: 1 });
    }
    await db.pool.query('UPDATE sources SET last_sync_id = $1 WHERE id = $2', [syncs[0], source]);

    await db.pool.query('DELETE FROM sources WHERE id = $1', [source]);

    const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql, [source])).rows[0]!.n);
    assert.equal(await count('SELECT count(*) AS n FROM sync_runs WHERE source_id = $1'), 0);
    assert.equal(await count('SELECT count(*) AS n FROM schedules WHERE source_id = $1'), 0);
    assert.equal(await count('SELECT count(*) AS n FROM file_records WHERE source_id = $1'), 0);
    for (const sync of syncs) {
      assert.equal(
        Number(
          (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM content_chunks WHERE sync_id = $1', [sync]))
            .rows[0]!.n,
        ),
        0,
      );
      assert.equal(
        Number(
          (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM sync_issues WHERE sync_id = $1', [sync]))
            .rows[0]!.n,
        ),
        0,
      );
      assert.deepEqual(await graphCounts(db.pool, sync), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
    }
    // Another source's graph is untouched.
    assert.deepEqual(await graphCounts(db.pool, keepSync), { File: 2, Symbol: 1, depends_on: 1, defines: 1 });
  });

  it('purging one sync removes only its graph; delete_sync_graph cleans a sync in place', async () => {
    const source = await insertSource(db.pool);
    const a = await insertSync(db.pool, source);
    const b = await insertSync(db.pool, source);
    for (const s of [a, b])
      await insertGraph(
        db.pool,
        s,
        source,
        await insertFile(db.pool, s, source, 'a'),
        await insertFile(db.pool, s, source, 'b'),
      );
    await db.pool.query('DELETE FROM sync_runs WHERE id = $1', [a]);
    assert.deepEqual(await graphCounts(db.pool, a), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
    assert.deepEqual(await graphCounts(db.pool, b), { File: 2, Symbol: 1, depends_on: 1, defines: 1 });
    const removed = await db.pool.query<{ n: string }>('SELECT delete_sync_graph($1) AS n', [b]);
    assert.equal(removed.rows[0]!.n, '5');
    assert.deepEqual(await graphCounts(db.pool, b), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
  });

  it('records at most 1000 issues per sync, exactly, under concurrent writers', async () => {
    const source = await insertSource(db.pool);
    const sync = await insertSync(db.pool, source, 'running');
    // 8 writers x 150 issues each, in transactions that interleave.
    await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        withTransaction(db.pool, async (c) => {
          for (let i = 0; i < 150; i++) {
            await c.query(
              `INSERT INTO sync_issues (sync_id, level, phase, code, message) VALUES ($1, 'warning', 'parsing', 'x', $2)`,
              [sync, `${w}:${i}`],
            );
          }
        }),
      ),
    );
    const n = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM sync_issues WHERE sync_id = $1', [sync]);
    assert.equal(n.rows[0]!.n, '1000');
    const run = await db.pool.query<{ issues_recorded: number; issues_dropped: number }>(
      'SELECT issues_recorded, issues_dropped FROM sync_runs WHERE id = $1',
      [sync],
    );
    assert.deepEqual(run.rows[0], { issues_recorded: 1000, issues_dropped: 200 });
  });

  it('finds File vertices by file_id and sync_id, vertices by id, edges by either end, symbol names, through indexes', async () => {
    for (const [label, expr] of [
      [
        '"File"',
        `ag_catalog.agtype_access_operator(properties, '"file_id"'::ag_catalog.agtype) = '"x"'::ag_catalog.agtype`,
      ],
      [
        '"File"',
        `ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = '"x"'::ag_catalog.agtype`,
      ],
      ['"File"', `id = '844424930131969'::ag_catalog.graphid`],
      ['"Symbol"', `id = '1125899906842625'::ag_catalog.graphid`],
      ['depends_on', `start_id = '844424930131969'::ag_catalog.graphid`],
      ['depends_on', `end_id = '844424930131969'::ag_catalog.graphid`],
      ['defines', `start_id = '844424930131969'::ag_catalog.graphid`],
      ['defines', `end_id = '1125899906842625'::ag_catalog.graphid`],
      // Symbol names, once per file content (V20): exact and prefix (btree pattern ops), fuzzy (trigrams).
      ['file_content_symbols', `lower(name) = 'readall'`],
      ['file_content_symbols', `lower(name) LIKE 'read%'`],
      ['file_content_symbols', `lower(name) LIKE '%read%'`],
      ['file_content_symbols', `'readal' <% lower(name)`],
    ] as const) {
      const c = await db.pool.connect();
      try {
        await c.query('SET enable_seqscan = off');
        const table = label === 'file_content_symbols' ? label : `service.${label}`;
        const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT * FROM ${table} WHERE ${expr}`);
        const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(text, /Index (Only )?Scan|Bitmap Index Scan/, `${label} WHERE ${expr} uses an index:\n${text}`);
      } finally {
        await c.query('RESET enable_seqscan');
        c.release();
      }
    }
  });
});
