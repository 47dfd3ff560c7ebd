// Sync commands of the ingestion component over real HTTP, against real PostgreSQL and the real Temporal server,
// with the real sync worker syncing git repositories made at test time (test/support/ingestion/harness.ts).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  graphCounts,
  insertFile,
  insertGraph,
  insertSource,
  insertSync,
  temporalIdOfSchedule,
} from '../support/fixtures.ts';
import {
  events,
  lifecycle,
  startHarness,
  syncStatus,
  waitForEnd,
  waitForStatus,
  type Harness,
} from '../support/ingestion/harness.ts';
import { waitFor } from '../support/wait.ts';
import type { Sync } from '../../lib/api/schemas.ts';

describe('ingestion: sync commands', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  afterEach(() => h.releaseSyncs());
  after(async () => {
    await h.close();
  });

  /** A source of `repo` (the small repository by default). */
  async function source(
    config: Record<string, unknown> = {},
    branch = 'main',
    repo: 'small' | 'slow' = 'small',
  ): Promise<string> {
    const id = await insertSource(h.db.pool);
    await h.db.pool.query(`UPDATE sources SET config = $2, default_branch = $3, url = $4 WHERE id = $1`, [
      id,
      JSON.stringify(config),
      branch,
      h.repos[repo].dir,
    ]);
    return id;
  }

  /** A source whose syncs stay running while held (see holdSyncs). */
  const slowSource = () => source({}, 'main', 'slow');

  /** Creates a sync and waits until the worker runs it (hold syncs first to keep it running). */
  async function runningSync(sourceId: string): Promise<string> {
    const res = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'alice' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await waitForStatus(h, res.body.id, 'running');
    return res.body.id;
  }

  /** Lets held syncs go and waits for the run to complete. */
  async function releaseAndComplete(syncId: string): Promise<void> {
    h.releaseSyncs();
    await waitForEnd(h, syncId, 'completed');
  }

  async function workflowClosed(sourceId: string): Promise<void> {
    await waitFor('the workflow to close', async () => {
      const d = await h.client.workflow.getHandle(sourceId).describe();
      return d.status.name !== 'RUNNING';
    });
  }

  it('POST /api/syncs creates a pending run with config_snapshot, ref, triggered_by and its event, and starts the workflow', async () => {
    const sourceId = await source({ include_paths: ['src'], depth: 1 }, 'trunk');
    const res = await h.api<Sync>('POST', '/api/syncs', {
      source_id: sourceId,
      triggered_by: 'alice',
      config_overrides: { include_paths: ['lib'], extra: true },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'pending');
    assert.equal(res.body.source_id, sourceId);
    assert.deepEqual(res.body.config_snapshot, { include_paths: ['lib'], depth: 1, extra: true });
    assert.equal(res.body.ref, 'trunk');
    assert.equal(res.body.triggered_by, 'alice');
    assert.equal(res.body.schedule_id, null);
    assert.equal(typeof res.body.created_at, 'string');

    const created = (await events(h, 'sync_lifecycle')).find((e) => e.sync_id === res.body.id);
    assert.deepEqual(created?.payload, {
      sync_id: res.body.id,
      source_id: sourceId,
      status: 'pending',
      previous_status: null,
      triggered_by: 'alice',
    });
    // The workflow id is the source id, and its search attributes name the sync and the source.
    const d = await h.client.workflow.getHandle(sourceId).describe();
    assert.equal(d.type, 'syncWorkflow');
    assert.equal(d.taskQueue, h.taskQueue);
    assert.deepEqual(d.searchAttributes.CkgSyncId, [res.body.id]);
    assert.deepEqual(d.searchAttributes.CkgSourceId, [sourceId]);
    assert.match(String(d.searchAttributes.CkgSourceName?.[0]), /^acme\/repo-/);
    assert.deepEqual(d.searchAttributes.CkgTrigger, ['alice']);
    assert.equal(d.memo?.sync_id, res.body.id);
    // The worker syncs it: branch trunk, only the overridden include_paths.
    await waitForEnd(h, res.body.id, 'completed');
    assert.deepEqual(await lifecycle(h, res.body.id), ['pending', 'running', 'completed']);
    const files = await h.db.pool.query<{ file_path: string }>(
      `SELECT file_path FROM file_records WHERE sync_id = $1 ORDER BY file_path`,
      [res.body.id],
    );
    assert.deepEqual(
      files.rows.map((f) => f.file_path),
      ['lib/read.ts'],
    );
    const run = await h.db.pool.query<{ stats: { commit_sha: string } }>(`SELECT stats FROM sync_runs WHERE id = $1`, [
      res.body.id,
    ]);
    assert.equal(run.rows[0]!.stats.commit_sha, h.repos.taggedCommit, 'branch trunk was fetched, not main');
  });

  it('uses the given ref, defaults triggered_by to "api", and the source config when no overrides', async () => {
    const sourceId = await source({ a: 1 });
    const res = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId, ref: 'refs/tags/v1.2' });
    assert.equal(res.status, 201);
    assert.equal(res.body.ref, 'refs/tags/v1.2');
    assert.equal(res.body.triggered_by, 'api');
    assert.deepEqual(res.body.config_snapshot, { a: 1 });
    await waitForEnd(h, res.body.id, 'completed');
    const stats = (
      await h.db.pool.query<{ stats: { commit_sha: string } }>(`SELECT stats FROM sync_runs WHERE id = $1`, [
        res.body.id,
      ])
    ).rows[0]!.stats;
    assert.equal(stats.commit_sha, h.repos.taggedCommit, 'the tag was fetched, not the branch');
    assert.notEqual(stats.commit_sha, h.repos.small.head);
    const changelog = await h.db.pool.query(
      `SELECT 1 FROM file_records WHERE sync_id = $1 AND file_path = 'CHANGELOG.md'`,
      [res.body.id],
    );
    assert.equal(changelog.rowCount, 0);
  });

  it('50 concurrent POST /api/syncs for one source: exactly one 201, the rest 409 CONFLICT', async () => {
    const sourceId = await slowSource();
    h.holdSyncs();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => h.api<Sync>('POST', '/api/syncs', { source_id: sourceId })),
    );
    const created = results.filter((r) => r.status === 201);
    const conflicts = results.filter((r) => r.status === 409);
    assert.equal(created.length, 1, JSON.stringify(results.map((r) => r.status)));
    assert.equal(conflicts.length, 49);
    const winner = created[0]!.body.id;
    for (const c of conflicts) {
      const err = (c.body as unknown as { error: { code: string; details?: { active_sync_id?: string } } }).error;
      assert.equal(err.code, 'CONFLICT');
      assert.equal(err.details?.active_sync_id, winner);
    }
    const rows = await h.db.pool.query(`SELECT id FROM sync_runs WHERE source_id = $1`, [sourceId]);
    assert.equal(rows.rowCount, 1);
    await waitForStatus(h, winner, 'running');
    assert.deepEqual(
      (await events(h, 'sync_lifecycle')).filter((e) => e.source_id === sourceId).map((e) => e.payload.status),
      ['pending', 'running'],
    );
    await releaseAndComplete(winner);
    assert.equal((await h.db.pool.query(`SELECT id FROM sync_runs WHERE source_id = $1`, [sourceId])).rowCount, 1);
  });

  it('a disabled source starts no sync: 409 FAILED_PRECONDITION, no row', async () => {
    const sourceId = await source();
    await h.db.pool.query(`UPDATE sources SET enabled = false WHERE id = $1`, [sourceId]);
    const res = await h.api('POST', '/api/syncs', { source_id: sourceId });
    assert.equal(res.status, 409);
    assert.equal((res.body as { error: { code: string } }).error.code, 'FAILED_PRECONDITION');
    assert.match((res.body as { error: { message: string } }).error.message, /disabled/);
    const rows = await h.db.pool.query(`SELECT id FROM sync_runs WHERE source_id = $1`, [sourceId]);
    assert.equal(rows.rowCount, 0);
  });

  it('an unknown source is 404 and creates nothing', async () => {
    const res = await h.api('POST', '/api/syncs', { source_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(res.status, 404);
    assert.equal((res.body as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  it('a start that Temporal refuses marks the run failed with the error and its event, never pending', async () => {
    const sourceId = await source();
    // Another workflow already holds this source's workflow id (and does not close within the wait).
    const squatter = await h.client.workflow.start('syncWorkflow', {
      taskQueue: `${h.taskQueue}-nobody`,
      workflowId: sourceId,
      args: [{ syncId: '00000000-0000-4000-8000-000000000001', sourceId }],
    });
    try {
      const res = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId });
      assert.equal(res.status, 409);
      const err = (res.body as unknown as { error: { code: string; details: { sync_id: string } } }).error;
      assert.equal(err.code, 'CONFLICT');
      const row = await h.db.pool.query<{ status: string; error: string }>(
        `SELECT status, error FROM sync_runs WHERE id = $1`,
        [err.details.sync_id],
      );
      assert.equal(row.rows[0]?.status, 'failed');
      assert.match(row.rows[0].error, /still running/);
      assert.deepEqual(await lifecycle(h, err.details.sync_id), ['pending', 'failed']);
      // The source is free again.
      assert.equal(
        (
          await h.db.pool.query(`SELECT 1 FROM sync_runs WHERE source_id = $1 AND status IN ('pending','running')`, [
            sourceId,
          ])
        ).rowCount,
        0,
      );
    } finally {
      await squatter.terminate('test over');
    }
  });

  it('cancel mid-run: the workflow gets the cancel signal and the run ends cancelled with the reason', async () => {
    const sourceId = await slowSource();
    h.holdSyncs();
    const syncId = await runningSync(sourceId);
    const res = await h.api<Sync>('POST', `/api/syncs/${syncId}/cancel`, { reason: 'wrong branch' });
    h.releaseSyncs();
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'cancelled');
    assert.equal(res.body.error, 'wrong branch');
    assert.equal(typeof res.body.completed_at, 'string');
    assert.deepEqual(await lifecycle(h, syncId), ['pending', 'running', 'cancelled']);
    await workflowClosed(sourceId);
    // Cancelling again: the run is no longer active.
    const again = await h.api('POST', `/api/syncs/${syncId}/cancel`);
    assert.equal(again.status, 409);
    assert.equal((again.body as { error: { code: string } }).error.code, 'FAILED_PRECONDITION');
  });

  it('cancel of a pending run whose workflow never started marks it cancelled directly', async () => {
    const sourceId = await source();
    const syncId = await insertSync(h.db.pool, sourceId, 'pending');
    const res = await h.api<Sync>('POST', `/api/syncs/${syncId}/cancel`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'cancelled');
    assert.equal(res.body.error, 'cancelled by request');
    assert.deepEqual(await lifecycle(h, syncId), ['cancelled']);
  });

  it('retry a failed sync: back to pending with error and progress cleared, then it runs again (signal-with-start)', async () => {
    // The repository is not there: the sync fails in its cloning phase.
    const sourceId = await source();
    await h.db.pool.query(`UPDATE sources SET url = '/nonexistent/ckg/repository' WHERE id = $1`, [sourceId]);
    const res0 = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'alice' });
    assert.equal(res0.status, 201);
    const syncId = res0.body.id;
    await waitForEnd(h, syncId, 'failed');
    await workflowClosed(sourceId);
    const failed = await h.db.pool.query<{ error: string }>(`SELECT error FROM sync_runs WHERE id = $1`, [syncId]);
    assert.match(failed.rows[0]!.error, /^cloning .*nonexistent.* failed/);
    // As a run that failed mid-way would have it.
    await h.db.pool.query(`UPDATE sync_runs SET progress_done = 7, progress_total = 9 WHERE id = $1`, [syncId]);
    // The repository is back.
    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [sourceId, h.repos.small.dir]);

    const res = await h.api<Sync>('POST', `/api/syncs/${syncId}/retry`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, syncId);
    assert.equal(res.body.status, 'pending');
    assert.equal(res.body.error, null);
    assert.equal(res.body.progress_done, 0);
    assert.equal(res.body.progress_total, 0);
    assert.equal(res.body.completed_at, null);
    await waitForEnd(h, syncId, 'completed');
    assert.deepEqual(await lifecycle(h, syncId), ['pending', 'running', 'failed', 'pending', 'running', 'completed']);
    const issues = await h.db.pool.query(`SELECT 1 FROM sync_issues WHERE sync_id = $1`, [syncId]);
    assert.equal(issues.rowCount, 0, 'the clone issue of the failed attempt is gone');
  });

  it('retry refuses a sync that is not failed or cancelled (409), and a retry while another run is active (409 CONFLICT)', async () => {
    const sourceId = await slowSource();
    const completed = await insertSync(h.db.pool, sourceId, 'completed');
    const res = await h.api('POST', `/api/syncs/${completed}/retry`);
    assert.equal(res.status, 409);
    assert.equal((res.body as { error: { code: string } }).error.code, 'FAILED_PRECONDITION');

    const failed = await insertSync(h.db.pool, sourceId, 'failed');
    h.holdSyncs();
    const active = await runningSync(sourceId);
    const conflict = await h.api('POST', `/api/syncs/${failed}/retry`);
    assert.equal(conflict.status, 409);
    assert.equal((conflict.body as { error: { code: string } }).error.code, 'CONFLICT');
    assert.equal(await syncStatus(h, failed), 'failed');
    assert.equal(await syncStatus(h, active), 'running', 'the conflict was checked while the other run was active');
    await releaseAndComplete(active);
    assert.equal(await syncStatus(h, failed), 'failed');
  });

  it('clean: completed → cleaned, graph removed in the same change, file records kept; other states 409', async () => {
    const sourceId = await source();
    const syncId = await insertSync(h.db.pool, sourceId, 'completed');
    const other = await insertSync(h.db.pool, sourceId, 'completed');
    const a = await insertFile(h.db.pool, syncId, sourceId, 'src/a.ts');
    const b = await insertFile(h.db.pool, syncId, sourceId, 'src/b.ts');
    await insertGraph(h.db.pool, syncId, sourceId, a, b);
    const oa = await insertFile(h.db.pool, other, sourceId, 'src/a.ts');
    const ob = await insertFile(h.db.pool, other, sourceId, 'src/b.ts');
    await insertGraph(h.db.pool, other, sourceId, oa, ob);

    const res = await h.api<Sync>('POST', `/api/syncs/${syncId}/clean`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'cleaned');
    assert.deepEqual(await graphCounts(h.db.pool, syncId), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
    assert.deepEqual(await graphCounts(h.db.pool, other), { File: 2, Symbol: 1, depends_on: 1, defines: 1 });
    const files = await h.db.pool.query(`SELECT 1 FROM file_records WHERE sync_id = $1`, [syncId]);
    assert.equal(files.rowCount, 2);
    const ev = (await events(h, 'sync_lifecycle')).filter((e) => e.sync_id === syncId);
    assert.deepEqual(
      ev.map((e) => [e.payload.status, e.payload.previous_status]),
      [['cleaned', 'completed']],
    );

    const again = await h.api('DELETE', `/api/syncs/${syncId}/clean`);
    assert.equal(again.status, 409);
    assert.equal((again.body as { error: { code: string } }).error.code, 'FAILED_PRECONDITION');
    // DELETE works the same as POST.
    const failed = await insertSync(h.db.pool, sourceId, 'failed');
    const viaDelete = await h.api<Sync>('DELETE', `/api/syncs/${failed}/clean`);
    assert.equal(viaDelete.status, 200);
    assert.equal(viaDelete.body.status, 'cleaned');
    for (const status of ['pending', 'running', 'cancelled']) {
      const s = await source();
      const id = await insertSync(h.db.pool, s, status);
      const r = await h.api('POST', `/api/syncs/${id}/clean`);
      assert.equal(r.status, 409, status);
      assert.equal(await syncStatus(h, id), status);
    }
  });

  it('purge: 204, the run, its files, chunks, issues and graph are gone; the source forgets it as last sync', async () => {
    const sourceId = await source();
    const syncId = await insertSync(h.db.pool, sourceId, 'completed');
    const a = await insertFile(h.db.pool, syncId, sourceId, 'a.py');
    const b = await insertFile(h.db.pool, syncId, sourceId, 'b.py');
    await insertGraph(h.db.pool, syncId, sourceId, a, b);
    await h.db.pool.query(
      `INSERT INTO content_chunks (file_id, sync_id, chunk_index, content, start_line, end_line, token_count, language, chunk_type)
       VALUES ($1, $2, 0, 'x', 1, 1, 1, 'python', 'line')`,
      [a, syncId],
    );
    await h.db.pool.query(
      `INSERT INTO sync_issues (sync_id, level, phase, code, message) VALUES ($1, 'info', 'parsing', 'x', 'y')`,
      [syncId],
    );
    await h.db.pool.query(`UPDATE sources SET last_sync_id = $2, last_synced_at = now() WHERE id = $1`, [
      sourceId,
      syncId,
    ]);

    const res = await h.api('DELETE', `/api/syncs/${syncId}`);
    assert.equal(res.status, 204);
    for (const table of [
      'sync_runs WHERE id',
      'file_records WHERE sync_id',
      'content_chunks WHERE sync_id',
      'sync_issues WHERE sync_id',
    ]) {
      const r = await h.db.pool.query(`SELECT 1 FROM ${table} = $1`, [syncId]);
      assert.equal(r.rowCount, 0, table);
    }
    assert.deepEqual(await graphCounts(h.db.pool, syncId), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
    const src = await h.db.pool.query<{ last_sync_id: string | null }>(
      `SELECT last_sync_id FROM sources WHERE id = $1`,
      [sourceId],
    );
    assert.equal(src.rows[0]?.last_sync_id, null);
    assert.deepEqual(await lifecycle(h, syncId), ['purged']);
    const changed = (await events(h, 'source_changed')).filter((e) => e.source_id === sourceId);
    assert.deepEqual(
      changed.map((e) => [e.payload.change, e.payload.last_sync_id]),
      [['updated', null]],
    );

    const again = await h.api('DELETE', `/api/syncs/${syncId}`);
    assert.equal(again.status, 404);
  });

  it('purge of a running sync cancels its workflow first, then deletes the run', async () => {
    const sourceId = await slowSource();
    h.holdSyncs();
    const syncId = await runningSync(sourceId);
    const res = await h.api('DELETE', `/api/syncs/${syncId}`);
    h.releaseSyncs();
    assert.equal(res.status, 204);
    assert.equal(await syncStatus(h, syncId), undefined);
    const d = await h.client.workflow.getHandle(sourceId).describe();
    assert.equal(d.status.name, 'COMPLETED');
    assert.deepEqual(await lifecycle(h, syncId), ['pending', 'running', 'cancelled', 'purged']);
    for (const table of ['file_records', 'content_chunks', 'sync_issues']) {
      const r = await h.db.pool.query(`SELECT 1 FROM ${table} WHERE sync_id = $1`, [syncId]);
      assert.equal(r.rowCount, 0, `${table} of the purged run`);
    }
    assert.deepEqual(await graphCounts(h.db.pool, syncId), { File: 0, Symbol: 0, depends_on: 0, defines: 0 });
    // The source can sync again.
    const next = await runningSync(sourceId);
    await waitForEnd(h, next, 'completed');
  });

  it('DELETE /ingest/sources/{id}: cancels the active sync, deletes the schedules; idempotent', async () => {
    const sourceId = await slowSource();
    h.holdSyncs();
    const syncId = await runningSync(sourceId);
    const sched = await h.api<{ id: number }>('POST', '/api/schedules', { source_id: sourceId, interval_minutes: 60 });
    assert.equal(sched.status, 201);
    const temporalId = await temporalIdOfSchedule(h.db.pool, h.settings.scheduleIdPrefix, sched.body.id);
    const res = await h.api('DELETE', `/ingest/sources/${sourceId}`);
    h.releaseSyncs();
    assert.equal(res.status, 204);
    assert.equal(await syncStatus(h, syncId), 'cancelled');
    await workflowClosed(sourceId);
    await assert.rejects(h.client.schedule.getHandle(temporalId).describe(), /not found/i);
    const again = await h.api('DELETE', `/ingest/sources/${sourceId}`);
    assert.equal(again.status, 204);
    const unknown = await h.api('DELETE', `/ingest/sources/00000000-0000-4000-8000-00000000abcd`);
    assert.equal(unknown.status, 204);
    await h.db.pool.query(`DELETE FROM sources WHERE id = $1`, [sourceId]);
  });

  it('GET /ingest/workflows/{source_id} describes the Temporal state of the source workflow', async () => {
    const sourceId = await slowSource();
    h.holdSyncs();
    const syncId = await runningSync(sourceId);
    const res = await h.api('GET', `/ingest/workflows/${sourceId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.workflow_id, sourceId);
    assert.equal(res.body.status, 'RUNNING');
    assert.equal(res.body.sync_id, syncId);
    assert.equal(res.body.triggered_by, 'alice');
    assert.equal(res.body.type, 'syncWorkflow');
    await releaseAndComplete(syncId);
    await workflowClosed(sourceId);
    const closed = await h.api('GET', `/ingest/workflows/${sourceId}`);
    assert.equal(closed.status, 200);
    assert.equal(closed.body.status, 'COMPLETED');
    const none = await h.api('GET', `/ingest/workflows/00000000-0000-4000-8000-00000000dcba`);
    assert.equal(none.status, 404);
  });
});
