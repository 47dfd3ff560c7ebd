import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { insertSource, insertSync } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp, type Reply } from '../support/graph-app.ts';
import type { IssueBody, Page, ScheduleBody, SyncBody } from '../support/graph-api-types.ts';

describe('graph component: reads of syncs, issues and schedules', () => {
  let app: GraphTestApp;
  let a: string;
  let b: string;
  let syncA: string;

  async function all<T>(path: string, limit: number): Promise<{ items: T[]; pages: number }> {
    const items: T[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const res: Reply<Page<T>> = await app.get<Page<T>>(
        `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      items.push(...res.body.items);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    return { items, pages };
  }

  before(async () => {
    app = await startGraphTestApp();
    const db = app.db.pool;
    a = await insertSource(db);
    b = await insertSource(db);
    // Several runs per source, created in one transaction (equal created_at: the id breaks ties).
    await db.query('BEGIN');
    for (const status of ['completed', 'failed', 'cancelled', 'completed', 'cleaned']) await insertSync(db, a, status);
    await db.query('COMMIT');
    syncA = await insertSync(db, a, 'running');
    for (const status of ['completed', 'failed']) await insertSync(db, b, status);
    await db.query(
      `INSERT INTO sync_issues (sync_id, level, phase, code, message)
       SELECT $1, (ARRAY['info','warning','error'])[1 + i % 3], (ARRAY['parsing','graphing'])[1 + i % 2], 'c' || i, 'm' || i
         FROM generate_series(0, 11) i`,
      [syncA],
    );
    for (const minutes of [5, 15, 30, 60]) {
      await db.query(`INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, $2)`, [
        minutes === 60 ? b : a,
        minutes,
      ]);
    }
  });
  after(() => app.close());

  it('lists syncs newest first through several pages, filtered by source and status', async () => {
    const { items, pages } = await all<SyncBody>('/api/syncs', 3);
    assert.equal(items.length, 8);
    assert.equal(pages, 3);
    assert.equal(new Set(items.map((s) => s.id)).size, 8);
    const created = items.map((s) => s.created_at);
    assert.deepEqual(created, [...created].sort().reverse());
    assert.equal(items[0]!.status === 'running' || items[0]!.source_id === b, true);

    const ofA = await all<SyncBody>(`/api/syncs?source_id=${a}`, 2);
    assert.equal(ofA.items.length, 6);
    assert.ok(ofA.items.every((s) => s.source_id === a));
    const completed = await all<SyncBody>(`/api/syncs?source_id=${a}&status=completed`, 50);
    assert.equal(completed.items.length, 2);
    for (const [q, field] of [
      ['status=done', 'status'],
      ['source_id=x', 'source_id'],
      ['limit=abc', 'limit'],
    ] as const) {
      const res = await app.get(`/api/syncs?${q}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.field, field);
    }
  });

  it('gets one sync with its stored columns', async () => {
    const res = await app.get<SyncBody>(`/api/syncs/${syncA}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.id, syncA);
    assert.equal(res.body.status, 'running');
    assert.equal(res.body.issues_recorded, 12);
    for (const key of [
      'config_snapshot',
      'progress_done',
      'progress_total',
      'stats',
      'schedule_id',
      'started_at',
      'completed_at',
    ]) {
      assert.ok(key in res.body, key);
    }
    assert.equal((await app.get('/api/syncs/3f2c8a4e-1b7d-4c2e-9a6f-0d1e2f3a4b5c')).status, 404);
    assert.equal((await app.get('/api/syncs/nope')).body.error.field, 'sync_id');
  });

  it('lists a sync’s issues oldest first, paginated, filtered by level and phase', async () => {
    const { items, pages } = await all<IssueBody>(`/api/syncs/${syncA}/issues`, 5);
    assert.equal(items.length, 12);
    assert.equal(pages, 3);
    assert.deepEqual(
      items.map((i) => i.code),
      Array.from({ length: 12 }, (_, i) => `c${i}`),
    );
    assert.ok(items.every((i) => typeof i.id === 'number'));
    const errors = await all<IssueBody>(`/api/syncs/${syncA}/issues?level=error&phase=parsing`, 50);
    assert.deepEqual(
      errors.items.map((i) => i.code),
      ['c2', 'c8'],
    );
    assert.equal((await app.get(`/api/syncs/${syncA}/issues?level=fatal`)).body.error.field, 'level');
    assert.equal((await app.get('/api/syncs/3f2c8a4e-1b7d-4c2e-9a6f-0d1e2f3a4b5c/issues')).status, 404);
  });

  it('lists schedules, by source', async () => {
    const { items } = await all<ScheduleBody>('/api/schedules', 1);
    assert.equal(items.length, 4);
    assert.ok(items.every((s) => typeof s.id === 'number'));
    const ofA = await all<ScheduleBody>(`/api/schedules?source_id=${a}`, 2);
    assert.deepEqual(
      ofA.items.map((s) => s.interval_minutes).sort((x, y) => x - y),
      [5, 15, 30],
    );
    assert.equal((await app.get('/api/schedules?source_id=1')).body.error.field, 'source_id');
  });
});
