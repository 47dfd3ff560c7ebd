// The graph component (reads) and the ingestion component (commands) serve the same JSON for the same sync run and
// schedule: what a command of the ingestion component returns is, field for field, what the graph component reads
// back. Both real components over real HTTP, the real database and the real Temporal server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ScheduleJson, SyncRunJson } from '../../lib/resources.ts';
import { insertSource, insertSync } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import type { Page } from '../support/graph-api-types.ts';

describe('graph and ingestion components: one JSON shape for sync runs and schedules', () => {
  let app: GraphTestApp;
  let ingestionUrl: string;
  let sourceId: string;

  async function ingestion<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(ingestionUrl + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  before(async () => {
    app = await startGraphTestApp();
    ingestionUrl = app.ingestion!.url;
    sourceId = await insertSource(app.db.pool);
  });
  after(async () => {
    // Deleting the source through the graph component tears down its Temporal workflow and schedules.
    await app.send('DELETE', `/api/sources/${sourceId}`);
    await app.close();
  });

  it('a sync created by POST /api/syncs reads back identically through GET /api/syncs/{id} and the list', async () => {
    const created = await ingestion<SyncRunJson>('POST', '/api/syncs', {
      source_id: sourceId,
      triggered_by: 'shape-test',
      ref: 'main',
      config_overrides: { include_paths: ['src'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, 'pending');
    assert.deepEqual(created.body.config_snapshot, { include_paths: ['src'] });

    const one = await app.get<SyncRunJson>(`/api/syncs/${created.body.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, created.body);
    // Same keys in the same order: the bodies are the same documents, not only equal objects.
    assert.equal(JSON.stringify(one.body), JSON.stringify(created.body));
    const list = await app.get<Page<SyncRunJson>>(`/api/syncs?source_id=${sourceId}`);
    assert.equal(JSON.stringify(list.body.items), JSON.stringify([created.body]));

    // Out of the way of the next test (one active sync per source).
    assert.equal((await fetch(`${ingestionUrl}/api/syncs/${created.body.id}`, { method: 'DELETE' })).status, 204);
  });

  it('a finished run with every field set: POST /api/syncs/{id}/clean returns what the graph component reads', async () => {
    const pool = app.db.pool;
    const schedule = await pool.query<{ id: string }>(
      `INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 1440) RETURNING id::text AS id`,
      [sourceId],
    );
    const syncId = await insertSync(pool, sourceId, 'failed');
    // What a failed run of the worker leaves behind.
    await pool.query(
      `UPDATE sync_runs SET ref = 'v1.2', config_snapshot = '{"include_paths":["lib"]}', progress_done = 7,
              progress_total = 9, progress_meta = '{"phase":"embedding"}', stats = '{"files":7}', schedule_id = $2::bigint,
              triggered_by = 'schedule:' || $2::text, error = 'embedding endpoint failed', issues_recorded = 3,
              issues_dropped = 1, started_at = now() - interval '2 minutes', completed_at = now(),
              pinned = true, pinned_at = now()
        WHERE id = $1`,
      [syncId, schedule.rows[0]!.id],
    );
    const cleaned = await ingestion<SyncRunJson>('POST', `/api/syncs/${syncId}/clean`);
    assert.equal(cleaned.status, 200, JSON.stringify(cleaned.body));
    assert.equal(cleaned.body.status, 'cleaned');
    assert.equal(cleaned.body.schedule_id, Number(schedule.rows[0]!.id));
    for (const [k, v] of Object.entries(cleaned.body)) assert.notEqual(v, null, `${k} is set`);

    const read = await app.get<SyncRunJson>(`/api/syncs/${syncId}`);
    assert.equal(read.status, 200);
    assert.equal(JSON.stringify(read.body), JSON.stringify(cleaned.body));
    await pool.query(`DELETE FROM schedules WHERE id = $1`, [schedule.rows[0]!.id]);
  });

  it('a schedule created by POST /api/schedules and changed by PATCH reads back identically in GET /api/schedules', async () => {
    const created = await ingestion<ScheduleJson>('POST', '/api/schedules', {
      source_id: sourceId,
      interval_minutes: 720,
      config_overrides: { include_paths: ['docs'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(typeof created.body.id, 'number');
    assert.notEqual(created.body.next_run_at, null);
    const listed = async () => {
      const res = await app.get<Page<ScheduleJson>>(`/api/schedules?source_id=${sourceId}`);
      assert.equal(res.status, 200);
      return res.body.items.filter((s) => s.id === created.body.id);
    };
    assert.equal(JSON.stringify(await listed()), JSON.stringify([created.body]));

    // A scheduled run happened (last_run_at), then the schedule is paused (next_run_at null).
    await app.db.pool.query(`UPDATE schedules SET last_run_at = now() - interval '1 hour' WHERE id = $1`, [
      created.body.id,
    ]);
    const patched = await ingestion<ScheduleJson>('PATCH', `/api/schedules/${created.body.id}`, { enabled: false });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.enabled, false);
    assert.notEqual(patched.body.last_run_at, null);
    assert.equal(JSON.stringify(await listed()), JSON.stringify([patched.body]));

    assert.equal((await fetch(`${ingestionUrl}/api/schedules/${created.body.id}`, { method: 'DELETE' })).status, 204);
  });
});
