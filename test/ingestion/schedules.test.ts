// Schedule writes of the ingestion component as Temporal Schedules, over real HTTP, PostgreSQL and Temporal; the
// scheduled runs are synced by the real worker from a git repository made at test time.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { insertSource, temporalIdOfSchedule } from '../support/fixtures.ts';
import {
  events,
  startHarness,
  syncStatus,
  waitForEnd,
  waitForStatus,
  type Harness,
} from '../support/ingestion/harness.ts';
import { waitFor } from '../support/wait.ts';
import type { ErrorBody, Schedule } from '../../lib/api/schemas.ts';

describe('ingestion: schedules as Temporal Schedules', () => {
  let h: Harness;
  /** Row id → Temporal schedule id of every schedule the tests made. */
  const created = new Map<number, string>();
  before(async () => {
    h = await startHarness();
  });
  afterEach(() => h.releaseSyncs());
  after(async () => {
    // Temporal schedules outlive the test database: remove any a failed test left (the harness also removes every
    // schedule with its prefix).
    for (const temporalId of created.values()) {
      await h.client.schedule
        .getHandle(temporalId)
        .delete()
        .catch(() => undefined);
    }
    await h.close();
  });

  const temporalId = (id: number): string => {
    const t = created.get(id);
    if (!t) throw new Error(`schedule ${id} was not made by this test`);
    return t;
  };
  const describeSchedule = (id: number): Promise<ScheduleDescription> =>
    h.client.schedule.getHandle(temporalId(id)).describe();

  /** A source of the slow repository: its syncs stay running while held (see holdSyncs). */
  async function source(config: Record<string, unknown> = {}): Promise<string> {
    const id = await insertSource(h.db.pool);
    await h.db.pool.query(`UPDATE sources SET config = $2, url = $3 WHERE id = $1`, [
      id,
      JSON.stringify(config),
      h.repos.slow.dir,
    ]);
    return id;
  }

  async function schedule(body: Record<string, unknown>): Promise<Schedule> {
    const res = await h.api<Schedule>('POST', '/api/schedules', body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    created.set(res.body.id, await temporalIdOfSchedule(h.db.pool, h.settings.scheduleIdPrefix, res.body.id));
    return res.body;
  }

  async function scheduleRow(id: number) {
    const r = await h.db.pool.query<{ last_run_at: Date | null; next_run_at: Date | null; enabled: boolean }>(
      `SELECT last_run_at, next_run_at, enabled FROM schedules WHERE id = $1`,
      [id],
    );
    return r.rows[0];
  }

  async function trigger(id: number): Promise<void> {
    await h.client.schedule.getHandle(temporalId(id)).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  }

  async function runsOf(sourceId: string) {
    const r = await h.db.pool.query<{
      id: string;
      status: string;
      triggered_by: string;
      schedule_id: string | null;
      config_snapshot: Record<string, unknown>;
      ref: string;
    }>(
      `SELECT id, status, triggered_by, schedule_id::text, config_snapshot, ref FROM sync_runs WHERE source_id = $1 ORDER BY created_at`,
      [sourceId],
    );
    return r.rows;
  }

  async function skips(scheduleId: number) {
    return (await events(h, 'schedule_run_skipped')).filter((e) => e.payload.schedule_id === scheduleId);
  }

  it('POST /api/schedules creates the row and the Temporal schedule <prefix><owner>-<name>-<id>; next_run_at comes from Temporal', async () => {
    const sourceId = await source();
    const s = await schedule({ source_id: sourceId, interval_minutes: 5, config_overrides: { include_paths: ['x'] } });
    assert.equal(typeof s.id, 'number');
    assert.equal(s.source_id, sourceId);
    assert.equal(s.interval_minutes, 5);
    assert.deepEqual(s.config_overrides, { include_paths: ['x'] });
    assert.equal(s.enabled, true);
    assert.equal(s.last_run_at, null);

    const d = await describeSchedule(s.id);
    assert.equal(d.state.paused, false);
    assert.equal(d.spec.intervals?.[0]?.every, 5 * 60_000);
    assert.equal(d.policies.overlap, ScheduleOverlapPolicy.SKIP);
    assert.equal(d.action.workflowType, 'scheduledSyncWorkflow');
    assert.equal(d.action.taskQueue, h.taskQueue);
    assert.deepEqual(d.action.args, [{ scheduleId: s.id, sourceId }]);
    assert.equal(d.memo?.source_id, sourceId);
    assert.match(String(d.memo?.source), /^acme\/repo-/);
    // The Schedules page names the repository; the row id keeps the id unique.
    const [owner, name] = String(d.memo?.source).split('/');
    assert.equal(d.scheduleId, `${h.settings.scheduleIdPrefix}${owner}-${name}-${s.id}`);
    assert.equal(d.action.workflowId, d.scheduleId);
    assert.equal(d.action.staticSummary, `scheduled sync of ${String(d.memo?.source)} (every 5 min, schedule ${s.id})`);
    assert.equal(s.next_run_at, d.info.nextActionTimes[0]?.toISOString());
    // Interval schedules tick on multiples of the interval since the epoch.
    assert.equal(Date.parse(s.next_run_at) % (5 * 60_000), 0);

    const ev = (await events(h, 'schedule_changed')).filter((e) => e.payload.schedule_id === s.id);
    assert.deepEqual(
      ev.map((e) => e.payload),
      [{ schedule_id: s.id, source_id: sourceId, change: 'created', enabled: true }],
    );
  });

  it('a second schedule with the same (source_id, interval_minutes) is 409 CONFLICT; another interval is fine', async () => {
    const sourceId = await source();
    const first = await schedule({ source_id: sourceId, interval_minutes: 30 });
    const dup = await h.api<ErrorBody>('POST', '/api/schedules', { source_id: sourceId, interval_minutes: 30 });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'CONFLICT');
    assert.equal(dup.body.error.details?.schedule_id, first.id);
    const rows = await h.db.pool.query(`SELECT id FROM schedules WHERE source_id = $1`, [sourceId]);
    assert.equal(rows.rowCount, 1);
    await schedule({ source_id: sourceId, interval_minutes: 60 });
  });

  it('unknown source → 404, no row, no Temporal schedule', async () => {
    const res = await h.api<ErrorBody>('POST', '/api/schedules', {
      source_id: '00000000-0000-4000-8000-000000000000',
      interval_minutes: 5,
    });
    assert.equal(res.status, 404);
    const rows = await h.db.pool.query(`SELECT id FROM schedules`);
    assert.ok(rows.rows.every((r: { id: string }) => created.has(Number(r.id))));
  });

  it('enabled=false at creation starts the Temporal schedule paused, with next_run_at null', async () => {
    const s = await schedule({ source_id: await source(), interval_minutes: 7, enabled: false });
    assert.equal(s.enabled, false);
    assert.equal(s.next_run_at, null);
    assert.equal((await describeSchedule(s.id)).state.paused, true);
  });

  it('PATCH enabled toggles pause in Temporal and next_run_at; interval changes move the spec; a taken interval is 409', async () => {
    const sourceId = await source();
    const s = await schedule({ source_id: sourceId, interval_minutes: 10 });
    await schedule({ source_id: sourceId, interval_minutes: 20 });

    const off = await h.api<Schedule>('PATCH', `/api/schedules/${s.id}`, { enabled: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.enabled, false);
    assert.equal(off.body.next_run_at, null);
    assert.equal((await describeSchedule(s.id)).state.paused, true);

    const on = await h.api<Schedule>('PATCH', `/api/schedules/${s.id}`, { enabled: true });
    assert.equal(on.body.enabled, true);
    const d = await describeSchedule(s.id);
    assert.equal(d.state.paused, false);
    assert.equal(on.body.next_run_at, d.info.nextActionTimes[0]?.toISOString());

    const moved = await h.api<Schedule>('PATCH', `/api/schedules/${s.id}`, {
      interval_minutes: 15,
      config_overrides: { a: 2 },
    });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.interval_minutes, 15);
    assert.deepEqual(moved.body.config_overrides, { a: 2 });
    assert.equal((await describeSchedule(s.id)).spec.intervals?.[0]?.every, 15 * 60_000);

    const taken = await h.api<ErrorBody>('PATCH', `/api/schedules/${s.id}`, { interval_minutes: 20 });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.code, 'CONFLICT');
    assert.equal((await describeSchedule(s.id)).spec.intervals?.[0]?.every, 15 * 60_000);
    assert.equal((await scheduleRow(s.id))?.enabled, true);

    const changes = (await events(h, 'schedule_changed')).filter((e) => e.payload.schedule_id === s.id);
    assert.deepEqual(
      changes.map((e) => [e.payload.change, e.payload.enabled]),
      [
        ['created', true],
        ['updated', false],
        ['updated', true],
        ['updated', true],
      ],
    );
  });

  it('PATCH recreates a Temporal schedule that went missing', async () => {
    const s = await schedule({ source_id: await source(), interval_minutes: 11 });
    await h.client.schedule.getHandle(temporalId(s.id)).delete();
    const res = await h.api<Schedule>('PATCH', `/api/schedules/${s.id}`, { enabled: true });
    assert.equal(res.status, 200);
    assert.equal((await describeSchedule(s.id)).spec.intervals?.[0]?.every, 11 * 60_000);
  });

  it('DELETE removes the Temporal schedule and the row (204), then 404', async () => {
    const sourceId = await source();
    const s = await schedule({ source_id: sourceId, interval_minutes: 9 });
    const res = await h.api('DELETE', `/api/schedules/${s.id}`);
    assert.equal(res.status, 204);
    await assert.rejects(describeSchedule(s.id), /not found/i);
    assert.equal(await scheduleRow(s.id), undefined);
    const ev = (await events(h, 'schedule_changed')).filter((e) => e.payload.schedule_id === s.id);
    assert.deepEqual(
      ev.map((e) => e.payload.change),
      ['created', 'deleted'],
    );
    const again = await h.api<ErrorBody>('DELETE', `/api/schedules/${s.id}`);
    assert.equal(again.status, 404);
    assert.equal((await h.api('PATCH', `/api/schedules/${s.id}`, { enabled: true })).status, 404);
  });

  it('a scheduled run: a sync with triggered_by schedule:<id>, schedule_id, the overrides merged, workflow id = source id; last_run_at set', async () => {
    const sourceId = await source({ include_paths: ['src'], keep: 1 });
    const s = await schedule({
      source_id: sourceId,
      interval_minutes: 45,
      config_overrides: { include_paths: ['docs'] },
    });
    h.holdSyncs();
    await trigger(s.id);
    const [run] = await waitFor('the scheduled run', async () => {
      const runs = await runsOf(sourceId);
      return runs.length > 0 ? runs : undefined;
    });
    assert.equal(run!.triggered_by, `schedule:${s.id}`);
    assert.equal(run!.schedule_id, String(s.id));
    assert.deepEqual(run!.config_snapshot, { include_paths: ['docs'], keep: 1 });
    assert.equal(run!.ref, 'main');
    await waitForStatus(h, run!.id, 'running');
    const d = await h.client.workflow.getHandle(sourceId).describe();
    assert.equal(d.type, 'syncWorkflow');
    assert.deepEqual(d.searchAttributes.CkgSyncId, [run!.id]);
    assert.deepEqual(d.searchAttributes.CkgTrigger, [`schedule:${s.id}`]);
    const row = await scheduleRow(s.id);
    assert.ok(row?.last_run_at, 'last_run_at is set');
    assert.equal(row.next_run_at?.toISOString(), (await describeSchedule(s.id)).info.nextActionTimes[0]?.toISOString());

    // While that run is active, a tick is skipped and says why.
    await trigger(s.id);
    const [skip] = await waitFor('a skip event', async () => {
      const e = await skips(s.id);
      return e.length > 0 ? e : undefined;
    });
    assert.deepEqual(skip!.payload, {
      schedule_id: s.id,
      source_id: sourceId,
      reason: 'active_sync',
      active_sync_id: run!.id,
    });
    assert.equal((await runsOf(sourceId)).length, 1);
    assert.ok(h.logs.some((l) => l.event === 'scheduled_sync_skipped' && l.reason === 'active_sync'));
    h.releaseSyncs();
    await waitForEnd(h, run!.id, 'completed');
    // The worker synced what the merged config asks for: docs/ only.
    const paths = await h.db.pool.query<{ file_path: string }>(
      `SELECT file_path FROM file_records WHERE sync_id = $1`,
      [run!.id],
    );
    assert.ok(paths.rows.length > 0);
    assert.ok(paths.rows.every((p) => p.file_path.startsWith('docs/')));
  });

  it('a tick of a disabled source or a disabled schedule is skipped with its reason', async () => {
    const sourceId = await source();
    const s = await schedule({ source_id: sourceId, interval_minutes: 50 });
    await h.db.pool.query(`UPDATE sources SET enabled = false WHERE id = $1`, [sourceId]);
    await trigger(s.id);
    await waitFor('the source_disabled skip', async () =>
      (await skips(s.id)).some((e) => e.payload.reason === 'source_disabled'),
    );
    await h.db.pool.query(`UPDATE sources SET enabled = true WHERE id = $1`, [sourceId]);
    assert.equal((await h.api('PATCH', `/api/schedules/${s.id}`, { enabled: false })).status, 200);
    await trigger(s.id);
    await waitFor('the schedule_disabled skip', async () =>
      (await skips(s.id)).some((e) => e.payload.reason === 'schedule_disabled'),
    );
    assert.equal((await runsOf(sourceId)).length, 0);
  });

  it('a 1-minute schedule starts runs on its own, skips ticks while one is active, and stops when paused', async () => {
    const sourceId = await source();
    h.holdSyncs();
    const s = await schedule({ source_id: sourceId, interval_minutes: 1 });
    // First tick: at the next minute boundary.
    const [first] = await waitFor(
      'the first scheduled run',
      async () => {
        const runs = await runsOf(sourceId);
        return runs.length > 0 ? runs : undefined;
      },
      120_000,
    );
    await waitForStatus(h, first!.id, 'running');
    // A tick while the first run is still running (held): skipped. The tick is taken now (Trigger, the same action a
    // timed tick runs) rather than awaited at the next minute boundary, which a loaded machine could let the held
    // run outlast or the scheduler take late.
    await trigger(s.id);
    await waitFor(
      'a skipped tick',
      async () => (await skips(s.id)).some((e) => e.payload.reason === 'active_sync'),
      60_000,
    );
    assert.equal((await runsOf(sourceId)).length, 1);
    assert.equal(await syncStatus(h, first!.id), 'running');

    // Paused (while the run is still held, so no tick between its end and the pause can start another): no further
    // run or skip across the next tick after the run ends. The tick is observed on a sentinel made after the end: an
    // unpaused 1-minute schedule of a disabled source, whose ticks are skipped with reason source_disabled.
    const paused = await h.api<Schedule>('PATCH', `/api/schedules/${s.id}`, { enabled: false });
    assert.equal(paused.body.next_run_at, null);
    const pausedAt = Date.now();
    h.releaseSyncs();
    await waitForEnd(h, first!.id, 'completed');
    // Counted after the end: a tick taken just before the pause has recorded its skip by now.
    const skipsBefore = (await skips(s.id)).length;
    const sentinelSource = await source();
    await h.db.pool.query(`UPDATE sources SET enabled = false WHERE id = $1`, [sentinelSource]);
    const sentinel = await schedule({ source_id: sentinelSource, interval_minutes: 1 });
    await waitFor(
      'the sentinel schedule to tick',
      async () => (await skips(sentinel.id)).some((e) => e.payload.reason === 'source_disabled'),
      120_000,
    );
    const tickAt = (await describeSchedule(sentinel.id)).info.recentActions[0]?.takenAt.getTime() ?? 0;
    assert.ok(tickAt > pausedAt, 'the sentinel ticked after the pause');
    assert.equal((await runsOf(sourceId)).length, 1);
    assert.equal((await skips(s.id)).length, skipsBefore);
    const recent = (await describeSchedule(s.id)).info.recentActions.filter((a) => a.takenAt.getTime() >= pausedAt);
    assert.deepEqual(recent, []);
  });
});
