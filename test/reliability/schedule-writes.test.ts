/**
 * Issue 10: schedule writes hold no database connection while they call Temporal (two phases: intent, Temporal call,
 * confirm; temporal/ingestion/schedules/commands.ts). The ingestion app runs on a pool of ONE connection and talks to
 * the real Temporal server through a TCP relay that can stall (accepts, passes no byte). Checked: a stalled Temporal
 * gives 503 with Retry-After and leaves the row and the Temporal schedule as they were; while a command waits on the
 * stalled Temporal the single pooled connection still serves others; a command whose undo failed, or whose process
 * died between the phases, is repaired by the next command or the reconciler so that the row and Temporal agree;
 * concurrent commands on one schedule stay serialised.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { Client, Connection, ScheduleNotFoundError, type ScheduleDescription } from '@temporalio/client';
import { listSchedules } from '../../graph-api/syncs/queries.ts';
import { createPool, type Pool } from '../../lib/db.ts';
import { createLogger } from '../../lib/log.ts';
import { createApp } from '../../temporal/ingestion/app.ts';
import type { IngestionDeps, IngestionSettings } from '../../temporal/ingestion/deps.ts';
import { repairStaleSchedules } from '../../temporal/ingestion/schedules/repair.ts';
import { createTemporalSchedule, scheduleSpec } from '../../temporal/ingestion/schedules/temporal.ts';
import { TEMPORAL_DOWN_MEMORY_MS } from '../../temporal/ingestion/temporal-gate.ts';
import { createTestDatabase, waitForLockWait, type TestDatabase } from '../support/db.ts';
import { testEnv } from '../support/env.ts';
import { insertSource, temporalIdOfSchedule } from '../support/fixtures.ts';
import { TcpRelay } from '../support/tcp-relay.ts';
import { connectClient, uniqueTaskQueue } from '../support/temporal.ts';
import type { ErrorBody, Schedule } from '../../lib/api/schemas.ts';
import { waitFor } from '../support/wait.ts';

/** Interval of the test schedules: one tick a year, so none fires during the test. */
const YEARLY = 525_600;
const CALL_TIMEOUT_MS = 4000;
const CONNECT_TIMEOUT_MS = 2000;

describe('reliability: schedule writes hold no connection while they call Temporal', () => {
  let db: TestDatabase;
  let pool: Pool;
  let relay: TcpRelay;
  let viaRelay: Connection;
  let direct: Client;
  let closeDirect: () => Promise<void>;
  let server: Server;
  let url: string;
  let deps: IngestionDeps;
  let sourceId: string;
  /** The app's clock runs this far ahead of the wall clock (moved past the Temporal gate's memory of a failure). */
  let ahead = 0;
  const logs: Array<Record<string, unknown>> = [];
  const settings: IngestionSettings = {
    taskQueue: uniqueTaskQueue('schedule-writes'),
    scheduleIdPrefix: `sched-rel-${randomBytes(4).toString('hex')}-`,
    cancelWaitMs: 0,
    stopTimeoutMs: 0,
    startConflictWaitMs: 0,
    temporalCallTimeoutMs: CALL_TIMEOUT_MS,
    temporalConnectTimeoutMs: CONNECT_TIMEOUT_MS,
  };
  /** Row id → Temporal schedule id of every schedule the tests made. */
  const ids = new Map<number, string>();
  const temporalId = (id: number | string): string => ids.get(Number(id)) ?? `${settings.scheduleIdPrefix}${id}`;

  before(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 1, acquireTimeoutMs: 2000, applicationName: 'ckg-test-one' });
    relay = TcpRelay.to(testEnv.temporalAddress);
    await relay.up();
    viaRelay = Connection.lazy({ address: relay.address });
    ({ client: direct, close: closeDirect } = await connectClient());
    deps = {
      pool,
      temporal: new Client({ connection: viaRelay, namespace: testEnv.temporalNamespace }),
      log: createLogger('ingestion', {
        level: 'info',
        write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
      }),
      settings,
      now: () => Date.now() + ahead,
    };
    server = createApp(deps).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sourceId = await insertSource(db.pool);
  });

  after(async () => {
    for (const id of ids.values()) {
      await direct.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await viaRelay.close().catch(() => undefined);
    await relay.down();
    await closeDirect();
    await pool.end();
    await db.drop();
  });

  async function api<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; res: Response }> {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, res };
  }

  async function create(interval = YEARLY): Promise<Schedule> {
    const r = await api<Schedule>('POST', '/api/schedules', { source_id: sourceId, interval_minutes: interval });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.set(r.body.id, await temporalIdOfSchedule(db.pool, settings.scheduleIdPrefix, r.body.id));
    return r.body;
  }

  /** The schedule as the read API (graph component's query) shows it. */
  async function read(id: number): Promise<{ enabled: boolean; interval_minutes: number } | undefined> {
    const rows = await listSchedules(db.pool, { sourceId, limit: 100 });
    return rows.find((r) => Number(r.id) === id);
  }

  async function describeSchedule(id: number): Promise<ScheduleDescription | undefined> {
    try {
      return await direct.schedule.getHandle(temporalId(id)).describe();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return undefined;
      throw err;
    }
  }

  function intervalOf(d: ScheduleDescription): number {
    const every = d.spec.intervals?.[0]?.every;
    return Number(every) / 60_000;
  }

  async function intents(): Promise<Array<{ schedule_id: string; operation: string; abandoned: boolean }>> {
    const r = await db.pool.query<{ schedule_id: string; operation: string; abandoned: boolean }>(
      `SELECT schedule_id::text AS schedule_id, operation, abandoned_at IS NOT NULL AS abandoned
         FROM schedule_intents ORDER BY schedule_id`,
    );
    return r.rows;
  }

  /** Relays again and waits until the app's Temporal connection has reconnected (a loaded machine may take seconds). */
  async function resume(): Promise<void> {
    relay.resume();
    await viaRelay.withDeadline(Date.now() + 30_000, () => viaRelay.workflowService.getSystemInfo({}));
  }

  function assertUnavailable(r: { status: number; body: ErrorBody; res: Response }): void {
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'UPSTREAM_UNAVAILABLE');
    assert.match(r.res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  }

  it('a stalled Temporal: every schedule write is 503 with Retry-After, fast, and nothing changed', async () => {
    const s = await create();
    relay.stall();
    try {
      for (const [method, path, body] of [
        ['PATCH', `/api/schedules/${s.id}`, { enabled: false }],
        ['DELETE', `/api/schedules/${s.id}`, undefined],
        ['POST', '/api/schedules', { source_id: sourceId, interval_minutes: 60 }],
      ] as const) {
        const started = Date.now();
        const r = await api<ErrorBody>(method, path, body);
        assertUnavailable(r);
        assert.ok(Date.now() - started < 3 * CONNECT_TIMEOUT_MS + 2000, `${method} took ${Date.now() - started} ms`);
      }
    } finally {
      await resume();
    }
    // Temporal is back; writes are refused without asking for TEMPORAL_DOWN_MEMORY_MS after the last failed check:
    // the app's clock moves past it, so the next test's writes ask again.
    ahead += TEMPORAL_DOWN_MEMORY_MS + 1;
    const now = await read(s.id);
    assert.equal(now?.enabled, true);
    assert.equal(now?.interval_minutes, YEARLY);
    const rows = await listSchedules(db.pool, { sourceId, limit: 100 });
    assert.equal(rows.filter((r) => r.interval_minutes === 60).length, 0, 'the refused create left no row');
    assert.deepEqual(await intents(), []);
    const d = await describeSchedule(s.id);
    assert.equal(d?.state.paused, false);
  });

  it('no pooled connection is held while a command waits on Temporal; its failed undo is repaired by the next command', async () => {
    const s = await create(YEARLY - 1);
    // Hold the schedule's row so the PATCH stops in its first phase (after its Temporal check passed), stall Temporal,
    // then let it go: its Temporal call now waits on the stalled relay.
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let patch: Promise<{ status: number; body: ErrorBody; res: Response }> | undefined;
    let settled = false;
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM schedules WHERE id = $1 FOR UPDATE', [s.id]);
      patch = api<ErrorBody>('PATCH', `/api/schedules/${s.id}`, { interval_minutes: YEARLY - 2 });
      patch.then(
        () => (settled = true),
        () => (settled = true),
      );
      await waitForLockWait(db.pool, "application_name = 'ckg-test-one'", 'the PATCH never reached its row lock');
      relay.stall();
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    // The intent is committed and the command is on Temporal: the only pooled connection is free.
    await waitFor('an intent to be recorded', async () => (await intents()).length > 0, 10_000, 20);
    // (Were the connection held, this would fail after the pool's 2 s acquire timeout.)
    const free = await pool.query<{ one: number }>('SELECT 1 AS one');
    assert.equal(free.rows[0]!.one, 1);
    assert.equal(settled, false, 'the PATCH was still waiting on Temporal while the pool served');
    assertUnavailable(await patch);
    await resume();

    // Nothing changed; the undo could not reach Temporal either, so the intent waits for a repair.
    assert.equal((await read(s.id))?.interval_minutes, YEARLY - 1);
    assert.deepEqual(await intents(), [{ schedule_id: String(s.id), operation: 'update', abandoned: true }]);
    assert.ok(logs.some((l) => l.event === 'schedule_undo_failed' && l.schedule_id === s.id));

    // The next command repairs it first (Temporal as the row says), then applies its own change.
    const r = await api<Schedule>('PATCH', `/api/schedules/${s.id}`, { enabled: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.enabled, false);
    assert.equal(r.body.interval_minutes, YEARLY - 1);
    assert.ok(logs.some((l) => l.event === 'schedule_repaired' && l.schedule_id === s.id));
    assert.deepEqual(await intents(), []);
    const d = await describeSchedule(s.id);
    assert.equal(d?.state.paused, true);
    assert.equal(intervalOf(d), YEARLY - 1);
  });

  it('commands interrupted between their phases are repaired: a create by the reconciler, an update by the next command', async () => {
    // A create whose process died after Temporal created the schedule: row + intent committed long ago.
    const c = await db.pool.query<{ id: string }>(
      `INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 30) RETURNING id::text AS id`,
      [sourceId],
    );
    const createdId = c.rows[0]!.id;
    ids.set(Number(createdId), `${settings.scheduleIdPrefix}${createdId}`);
    await db.pool.query(
      `INSERT INTO schedule_intents (schedule_id, token, operation, created_at)
       VALUES ($1, gen_random_uuid(), 'create', now() - interval '1 hour')`,
      [createdId],
    );
    const row = { id: createdId, source_id: sourceId, interval_minutes: 30, enabled: true, temporal_id: null };
    await createTemporalSchedule(direct, scheduleSpec(settings, row, 'o/r'));
    assert.equal(await read(Number(createdId)), undefined, 'a create not confirmed is not shown');

    // An update whose process died after Temporal paused the schedule: the row still says enabled.
    const u = await create(YEARLY - 3);
    await direct.schedule.getHandle(temporalId(u.id)).pause('the dead command');
    await db.pool.query(
      `INSERT INTO schedule_intents (schedule_id, token, operation, created_at)
       VALUES ($1, gen_random_uuid(), 'update', now() - interval '1 hour')`,
      [u.id],
    );

    assert.equal(await repairStaleSchedules(deps), 2);
    assert.equal(await describeSchedule(Number(createdId)), undefined, 'the interrupted create is undone in Temporal');
    const gone = await db.pool.query(`SELECT 1 FROM schedules WHERE id = $1`, [createdId]);
    assert.equal(gone.rowCount, 0);
    assert.equal((await describeSchedule(u.id))?.state.paused, false, 'Temporal is back to what the row says');
    assert.deepEqual(await intents(), []);

    // A delete whose process died after Temporal deleted the schedule: repaired by the next command this time.
    await direct.schedule.getHandle(temporalId(u.id)).delete();
    await db.pool.query(
      `INSERT INTO schedule_intents (schedule_id, token, operation, created_at)
       VALUES ($1, gen_random_uuid(), 'delete', now() - interval '1 hour')`,
      [u.id],
    );
    const r = await api<Schedule>('PATCH', `/api/schedules/${u.id}`, { config_overrides: { include_paths: ['src'] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.config_overrides, { include_paths: ['src'] });
    assert.equal((await describeSchedule(u.id))?.state.paused, false);
    assert.deepEqual(await intents(), []);
  });

  it('concurrent commands on one schedule are serialised: two PATCHes both apply; a DELETE racing a PATCH wins cleanly', async () => {
    const s = await create(YEARLY - 4);
    const [a, b] = await Promise.all([
      api<Schedule>('PATCH', `/api/schedules/${s.id}`, { enabled: false }),
      api<Schedule>('PATCH', `/api/schedules/${s.id}`, { interval_minutes: YEARLY - 5 }),
    ]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.deepEqual(
      { enabled: (await read(s.id))?.enabled, interval: (await read(s.id))?.interval_minutes },
      { enabled: false, interval: YEARLY - 5 },
    );
    const d = await describeSchedule(s.id);
    assert.equal(d?.state.paused, true);
    assert.equal(intervalOf(d), YEARLY - 5);

    const t = await create(YEARLY - 6);
    const [del, patch] = await Promise.all([
      api<ErrorBody>('DELETE', `/api/schedules/${t.id}`),
      api<Schedule | ErrorBody>('PATCH', `/api/schedules/${t.id}`, { enabled: false }),
    ]);
    assert.equal(del.status, 204);
    assert.ok(patch.status === 200 || patch.status === 404, `PATCH answered ${patch.status}`);
    assert.equal(await read(t.id), undefined);
    assert.equal(await describeSchedule(t.id), undefined);
    assert.deepEqual(await intents(), []);
  });
});
