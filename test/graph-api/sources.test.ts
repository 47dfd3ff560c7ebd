import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ScheduleNotFoundError } from '@temporalio/client';
import { graphCounts, insertFile, insertGraph, insertSync, temporalIdOfSchedule } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp, type Reply } from '../support/graph-app.ts';
import type { Page, SourceBody } from '../support/graph-api-types.ts';
import { waitForLockWait } from '../support/db.ts';

describe('graph component: sources', () => {
  let app: GraphTestApp;
  before(async () => {
    app = await startGraphTestApp();
  });
  after(() => app.close());

  const count = async (sql: string, params: unknown[] = []) =>
    (await app.db.pool.query<{ n: number }>(sql, params)).rows[0]!.n;

  const events = async (sourceId: string) =>
    (
      await app.db.pool.query<{ type: string; payload: Record<string, unknown> }>(
        `SELECT type, payload FROM events WHERE source_id = $1 ORDER BY id`,
        [sourceId],
      )
    ).rows;

  it('creates with 201, updates the same (source_type, owner, name) with 200, and emits source_changed', async () => {
    const created = await app.send<SourceBody>('POST', '/api/sources', {
      owner: 'acme',
      name: 'widgets',
      access_token: 'ghp_secret1',
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.source_type, 'github_repo');
    assert.equal(created.body.default_branch, 'main');
    assert.equal(created.body.url, 'https://github.com/acme/widgets.git');
    assert.equal(created.body.has_access_token, true);
    assert.equal(created.body.enabled, true);
    assert.ok(!JSON.stringify(created.body).includes('ghp_secret1'), 'the token is never returned');

    const updated = await app.send<SourceBody>('POST', '/api/sources', {
      owner: 'acme',
      name: 'widgets',
      default_branch: 'develop',
      config: { include_paths: ['src'], retention: { keep_completed: 3, keep_failed: 0 } },
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.id, created.body.id);
    assert.equal(updated.body.default_branch, 'develop');
    assert.deepEqual(updated.body.config, { include_paths: ['src'], retention: { keep_completed: 3, keep_failed: 0 } });
    assert.equal(updated.body.url, 'https://github.com/acme/widgets.git', 'fields not sent are kept');
    assert.equal(updated.body.has_access_token, true);

    const secret = await app.db.pool.query<{ access_token: string }>(
      `SELECT access_token FROM source_secrets WHERE source_id = $1`,
      [created.body.id],
    );
    assert.equal(secret.rows[0]?.access_token, 'ghp_secret1');
    const ev = await events(created.body.id);
    assert.deepEqual(
      ev.map((e) => [e.type, e.payload.change]),
      [
        ['source_changed', 'created'],
        ['source_changed', 'updated'],
      ],
    );
    assert.ok(!JSON.stringify(ev).includes('ghp_secret1'));
  });

  it('gets one source, 404 for an unknown id, 400 naming source_id for a bad one', async () => {
    const c = await app.send<SourceBody>('POST', '/api/sources', { owner: 'acme', name: 'getme' });
    const got = await app.get<SourceBody>(`/api/sources/${c.body.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, c.body);
    assert.equal(got.body.has_access_token, false);
    const missing = await app.get('/api/sources/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    const bad = await app.get('/api/sources/nope');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'source_id');
  });

  it('refuses bad bodies with 400 naming the field and writes nothing', async () => {
    const before = await count('SELECT count(*)::int AS n FROM sources');
    const cases: Array<[unknown, string]> = [
      [{ name: 'x' }, 'owner'],
      [{ owner: 'a' }, 'name'],
      [{ owner: 'a', name: 'b', url: 'ftp://host/x' }, 'url'],
      [{ owner: 'a', name: 'b', config: [] }, 'config'],
      [{ owner: 'a', name: 'b', config: { include_paths: 'src' } }, 'config.include_paths'],
      [{ owner: 'a', name: 'b', config: { incremental: 'yes' } }, 'config.incremental'],
      [{ owner: 'a', name: 'b', config: { embeddings: 'no' } }, 'config.embeddings'],
      [{ owner: 'a', name: 'b', config: { retention: 3 } }, 'config.retention'],
      [{ owner: 'a', name: 'b', config: { retention: { keep_completed: 0 } } }, 'config.retention.keep_completed'],
      [{ owner: 'a', name: 'b', config: { retention: { keep_completed: 2.5 } } }, 'config.retention.keep_completed'],
      [{ owner: 'a', name: 'b', config: { retention: { keep_failed: -1 } } }, 'config.retention.keep_failed'],
      [{ owner: 'a', name: 'b', config: { retention: { keep: 1 } } }, 'config.retention.keep'],
      [{ owner: 'a', name: 'b', enabled: 'yes' }, 'enabled'],
      [{ owner: 'a', name: 'b', acess_token: 't' }, 'acess_token'],
      [{ owner: 'a b', name: 'c' }, 'owner'],
      [[1, 2], 'body'],
      ['{not json', 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await app.send<SourceBody>('POST', '/api/sources', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'INVALID_ARGUMENT');
      assert.equal(res.body.error.field, field, JSON.stringify(body));
    }
    assert.equal(await count('SELECT count(*)::int AS n FROM sources'), before);
  });

  it('PATCH changes config, enabled, url, branch and the token; refuses identity fields and empty bodies', async () => {
    const c = await app.send<SourceBody>('POST', '/api/sources', {
      owner: 'acme',
      name: 'patchme',
      access_token: 'tok-a',
    });
    const id = c.body.id;
    const p = await app.send<SourceBody>('PATCH', `/api/sources/${id}`, {
      config: { include_paths: ['lib'] },
      enabled: false,
    });
    assert.equal(p.status, 200);
    assert.deepEqual(p.body.config, { include_paths: ['lib'] });
    assert.equal(p.body.enabled, false);
    assert.equal(p.body.default_branch, 'main');
    const p2 = await app.send<SourceBody>('PATCH', `/api/sources/${id}`, {
      url: 'git@example.com:acme/patchme.git',
      default_branch: 'trunk',
      access_token: null,
    });
    assert.equal(p2.status, 200);
    assert.equal(p2.body.url, 'git@example.com:acme/patchme.git');
    assert.equal(p2.body.default_branch, 'trunk');
    assert.equal(p2.body.has_access_token, false);
    const p3 = await app.send<SourceBody>('PATCH', `/api/sources/${id}`, { access_token: 'tok-b' });
    assert.equal(p3.body.has_access_token, true);
    for (const [body, field] of [
      [{ owner: 'x' }, 'owner'],
      [{}, 'body'],
      [{ config: 3 }, 'config'],
    ] as const) {
      const r = await app.send<SourceBody>('PATCH', `/api/sources/${id}`, body);
      assert.equal(r.status, 400);
      assert.equal(r.body.error.field, field);
    }
    const r404 = await app.send<SourceBody>('PATCH', '/api/sources/00000000-0000-4000-8000-000000000000', {
      enabled: true,
    });
    assert.equal(r404.status, 404);
    const changes = (await events(id)).map((e) => e.payload.change);
    assert.deepEqual(changes, ['created', 'updated', 'updated', 'updated']);
  });

  it('lists newest first in pages of `limit`, through more items than one page', async () => {
    for (let i = 0; i < 7; i++)
      await app.send<SourceBody>('POST', '/api/sources', { owner: 'pager', name: `repo-${i}` });
    const all = (
      await app.db.pool.query<{ id: string }>(`SELECT id FROM sources ORDER BY created_at DESC, id DESC`)
    ).rows.map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Reply<Page<SourceBody>> = await app.get<Page<SourceBody>>(
        `/api/sources?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200);
      assert.ok(res.body.items.length <= 3);
      seen.push(...res.body.items.map((s) => s.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    assert.deepEqual(seen, all);
    assert.equal(pages, Math.ceil(all.length / 3));
    assert.equal((await app.get('/api/sources?limit=0')).body.error.field, 'limit');
    assert.equal((await app.get('/api/sources?limit=201')).body.error.field, 'limit');
    assert.equal((await app.get('/api/sources?cursor=garbage')).body.error.field, 'cursor');
  });

  it('DELETE tears down Temporal state first, then cascades runs, issues, files, chunks, schedules and graph', async () => {
    const ingestion = app.ingestion!;
    const temporal = ingestion.deps.temporal;
    const ingest = async <T>(method: string, path: string, body: unknown): Promise<{ status: number; body: T }> => {
      const res = await fetch(ingestion.url + path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T };
    };
    const c = await app.send<SourceBody>('POST', '/api/sources', {
      owner: 'acme',
      name: 'doomed',
      access_token: 'tok',
    });
    const id = c.body.id;
    const db = app.db.pool;
    const sync = await insertSync(db, id);
    const fa = await insertFile(db, sync, id, 'a.ts');
    const fb = await insertFile(db, sync, id, 'b.ts');
    await insertGraph(db, sync, id, fa, fb);
    await db.query(
      `INSERT INTO content_chunks (file_id, sync_id, chunk_index, content, start_line, end_line, chunk_type)
       VALUES ($1, $2, 0, '# file: a.ts\n# in: \n\nx\n', 1, 1, 'line')`,
      [fa, sync],
    );
    await db.query(
      `INSERT INTO sync_issues (sync_id, level, phase, code, message) VALUES ($1, 'info', 'parsing', 'x', 'y')`,
      [sync],
    );
    // Temporal state, made through the ingestion component: a schedule (a row and a Temporal Schedule; a yearly
    // interval, so it never fires during the test) and an active sync (a row and its workflow, id = source id; no
    // worker polls this test's queue, so it stays running until the teardown ends it).
    const schedule = await ingest<{ id: number }>('POST', '/api/schedules', {
      source_id: id,
      interval_minutes: 525600,
    });
    assert.equal(schedule.status, 201);
    const scheduleHandle = temporal.schedule.getHandle(
      await temporalIdOfSchedule(db, ingestion.scheduleIdPrefix, schedule.body.id),
    );
    assert.equal((await scheduleHandle.describe()).state.paused, false);
    const run = await ingest<{ id: string; status: string }>('POST', '/api/syncs', {
      source_id: id,
      triggered_by: 't',
    });
    assert.equal(run.status, 201);
    assert.equal((await temporal.workflow.getHandle(id).describe()).status.name, 'RUNNING');
    assert.deepEqual(await graphCounts(db, sync), { File: 2, Symbol: 1, depends_on: 1, defines: 1 });

    ingestion.logs.length = 0;
    const del = await app.send('DELETE', `/api/sources/${id}`);
    assert.equal(del.status, 204);
    // The ingestion component was asked once, before the rows went, and tore down what it held.
    const teardowns = ingestion.logs.filter((l) => l.event === 'source_torn_down');
    assert.deepEqual(
      teardowns.map((l) => [l.source_id, l.schedules_deleted, l.workflow, l.cancelled_sync_id]),
      [[id, 1, 'terminated', run.body.id]],
    );
    // No Temporal state is left: the schedule is gone, the workflow is closed.
    await assert.rejects(scheduleHandle.describe(), (err: Error) => err instanceof ScheduleNotFoundError);
    assert.equal((await temporal.workflow.getHandle(id).describe()).status.name, 'TERMINATED');
    for (const [table, col] of [
      ['sources', 'id'],
      ['source_secrets', 'source_id'],
      ['sync_runs', 'source_id'],
      ['schedules', 'source_id'],
      ['file_records', 'source_id'],
    ]) {
      const n = await count(`SELECT count(*)::int AS n FROM ${table} WHERE ${col} = $1`, [id]);
      assert.equal(n, 0, table);
    }
    assert.equal(await count(`SELECT count(*)::int AS n FROM content_chunks WHERE sync_id = $1`, [sync]), 0);
    assert.equal(await count(`SELECT count(*)::int AS n FROM sync_issues WHERE sync_id = $1`, [sync]), 0);
    assert.deepEqual(await graphCounts(db, sync), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
    assert.deepEqual(
      (await events(id)).filter((e) => e.type === 'source_changed').map((e) => e.payload.change),
      ['created', 'deleted'],
    );
    assert.equal((await app.send('DELETE', `/api/sources/${id}`)).status, 404);
  });

  it('DELETE runs again when PostgreSQL makes it the victim of a deadlock with a sync still writing (no 500)', async () => {
    const c = await app.send<SourceBody>('POST', '/api/sources', { owner: 'acme', name: 'deadlocked' });
    const id = c.body.id;
    const sync = await insertSync(app.db.pool, id, 'completed');
    // A late writer of the sync (as an activity draining after teardown): it holds the run's row, then needs the
    // source's — the reverse of the delete's cascade. Its own deadlock check waits 10 s, so the delete's check (after
    // the default 1 s) finds the cycle and makes the delete the victim.
    const writer = await app.db.pool.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`SET LOCAL deadlock_timeout = '10s'`);
      await writer.query(`UPDATE sync_runs SET error = error WHERE id = $1`, [sync]);
      const del = app.send('DELETE', `/api/sources/${id}`);
      await waitForLockWait(
        app.db.pool,
        "query LIKE 'DELETE FROM sources%'",
        'the delete never waited on the writer',
        5000,
        25,
      );
      await writer.query(`UPDATE sources SET name = name WHERE id = $1`, [id]);
      await writer.query('COMMIT');
      const res = await del;
      assert.equal(res.status, 204, JSON.stringify(res.body));
    } finally {
      await writer.query('ROLLBACK').catch(() => undefined);
      writer.release();
    }
    assert.equal(await count(`SELECT count(*)::int AS n FROM sources WHERE id = $1`, [id]), 0);
    assert.equal(await count(`SELECT count(*)::int AS n FROM sync_runs WHERE id = $1`, [sync]), 0);
  });

  it('DELETE deletes nothing when the ingestion component fails or is unreachable', async () => {
    // An ingestion component whose Temporal namespace does not exist: its teardown answers with an error.
    const failing = await startGraphTestApp({
      ingestionEnv: { TEMPORAL_NAMESPACE: `ckg-missing-${randomBytes(4).toString('hex')}` },
    });
    try {
      const c = await failing.send<SourceBody>('POST', '/api/sources', { owner: 'acme', name: 'survivor' });
      const id = c.body.id;
      const refused = await failing.send('DELETE', `/api/sources/${id}`);
      assert.equal(refused.status, 502);
      assert.equal(refused.body.error.code, 'UPSTREAM_DISCONNECTED');
      assert.ok(
        failing.ingestion!.logs.some((l) => l.level === 'error'),
        'the ingestion component answered the teardown with a server error',
      );
      assert.equal((await failing.get(`/api/sources/${id}`)).status, 200);
    } finally {
      await failing.close();
    }

    const unreachable = await startGraphTestApp({ ingestionUrl: 'http://127.0.0.1:9' });
    try {
      const s = await unreachable.send<SourceBody>('POST', '/api/sources', { owner: 'acme', name: 'kept' });
      const res = await unreachable.send('DELETE', `/api/sources/${s.body.id}`);
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'UPSTREAM_UNAVAILABLE');
      assert.equal((await unreachable.get(`/api/sources/${s.body.id}`)).status, 200);
    } finally {
      await unreachable.close();
    }
  });
});
