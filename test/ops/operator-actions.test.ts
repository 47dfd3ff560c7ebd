/**
 * Issue 31: every action an operator can take in the Temporal UI, pressed through the Temporal client exactly as the
 * UI sends it (TerminateWorkflowExecution with a reason, ResetWorkflowExecution, SignalWorkflowExecution with no
 * input, null or a bad JSON object, PatchSchedule pause/unpause/trigger), each followed by the API's answer (the
 * graph component's GET /api/syncs/{id}, /api/schedules, /api/sources/{id} over HTTP) within 10 s. The ingestion
 * component's watcher runs as in production (a short interval here). The last test presses Pause and Terminate in
 * the real Temporal UI (TEMPORAL_UI_URL of the stack) in headless Chromium.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { changeStatus } from '../../lib/sync-runs/index.ts';
import { startWatcher, type Watcher } from '../../temporal/ingestion/watch.ts';
import {
  createTemporalSchedule,
  describeTemporalSchedule,
  scheduleSpec,
} from '../../temporal/ingestion/schedules/temporal.ts';
import { getSchedule } from '../../lib/schedules.ts';
import { ApplicationFailure, ScheduleNotFoundError, WorkflowFailedError } from '@temporalio/client';
import {
  CKG_SYNC_ID,
  CKG_SYNC_STATUS,
  retrySignal,
  SCHEDULED_SYNC_WORKFLOW_TYPE,
  SYNC_NOT_STARTED,
  SYNC_WORKFLOW_TYPE,
  syncStartOptions,
} from '../../workflows/sync-contract.ts';
import { insertSource, insertSync, temporalIdOfSchedule } from '../support/fixtures.ts';
import { startGraphTestApp, type GraphTestApp } from '../support/graph-app.ts';
import { events, startHarness, waitForEnd, waitForStatus, type Harness } from '../support/ingestion/harness.ts';
import { waitFor } from '../support/wait.ts';
import { testEnv } from '../support/env.ts';
import { launchBrowser } from '../support/browser.ts';
import type { Schedule, Sync } from '../../lib/api/schemas.ts';

/** The bound: the API says what Temporal says within this long after an action. */
const AGREE_MS = 10_000;

describe('operator actions in the Temporal UI, checked against the API', () => {
  let h: Harness;
  let graph: GraphTestApp;
  let watcher: Watcher;
  before(async () => {
    h = await startHarness();
    graph = await startGraphTestApp({ db: h.db, ingestionUrl: h.url });
    watcher = startWatcher(h.deps, 300, 30_000);
  });
  afterEach(() => h.releaseSyncs());
  after(async () => {
    await watcher.stop();
    await graph.close();
    await h.close();
  });

  const getSync = async (id: string) => (await graph.get<Sync>(`/api/syncs/${id}`)).body;
  /** Polls the API until `check` holds, for at most AGREE_MS. */
  const agree = <T>(what: string, fn: () => Promise<T | undefined | false>) => waitFor(what, fn, AGREE_MS);

  async function source(repo: 'slow' | 'small' = 'slow'): Promise<string> {
    const id = await insertSource(h.db.pool);
    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [id, h.repos[repo].dir]);
    return id;
  }
  async function startSync(sourceId: string): Promise<string> {
    const r = await h.api<Sync>('POST', '/api/syncs', { source_id: sourceId, triggered_by: 'alice' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id;
  }

  /**
   * Every closed execution of the source's workflow (`executions` of them) ends with search attributes that tell the
   * truth: CkgSyncStatus is the database's status of its run (CkgSyncId), or unset where Temporal closed it without
   * running workflow code (Terminated, TimedOut: ExecutionStatus says so); none keeps `pending` or `running`, so the
   * issue's query `CkgSyncStatus = "running" AND ExecutionStatus != "Running"` lists none of them.
   */
  async function attributesTellTheTruth(sourceId: string, executions: number): Promise<string[]> {
    const runIds = await agree(`${executions} closed executions in the list`, async () => {
      const ids: string[] = [];
      for await (const e of h.client.workflow.list({ query: `WorkflowId = '${sourceId}'` })) {
        if (e.status.name === 'RUNNING') return false;
        ids.push(e.runId);
      }
      return ids.length === executions && ids;
    });
    const endings: string[] = [];
    for (const runId of runIds) {
      const d = await h.client.workflow.getHandle(sourceId, runId).describe();
      const syncId = d.typedSearchAttributes.get(CKG_SYNC_ID);
      const status = d.typedSearchAttributes.get(CKG_SYNC_STATUS);
      const row = await h.db.pool.query<{ status: string }>(`SELECT status FROM sync_runs WHERE id = $1`, [syncId]);
      const inDb = row.rows[0]?.status;
      const what = `${d.status.name} execution ${runId} of sync ${syncId} (${inDb} in the database)`;
      if (d.status.name === 'TERMINATED' || d.status.name === 'TIMED_OUT') assert.equal(status, undefined, what);
      else assert.equal(status, inDb, what);
      endings.push(`${d.status.name}:${status ?? '-'}`);
    }
    for (const query of [
      `CkgSyncStatus = "running" AND ExecutionStatus != "Running"`,
      `CkgSyncStatus = "pending" AND ExecutionStatus != "Running"`,
    ]) {
      const n = await h.client.workflow.count(`WorkflowId = '${sourceId}' AND ${query}`);
      assert.equal(n.count, 0, query);
    }
    return endings.sort();
  }

  it('Terminate: the run ends cancelled with the typed reason within 10 s; a Reset of it completes it and leaves last_sync_id on the newest sync', async () => {
    h.holdSyncs();
    const sourceId = await source();
    const first = await startSync(sourceId);
    await waitForStatus(h, first, 'running');
    // Past beginSync in the history too (the run is running once beginSync's transaction commits; its completion is
    // recorded a moment later): the Reset below goes back to the workflow task after it.
    await waitFor('the clone to start', async () => {
      const r = await h.db.pool.query(
        `SELECT 1 FROM sync_runs WHERE id = $1 AND progress_meta ->> 'phase' <> 'starting'`,
        [first],
      );
      return r.rowCount === 1;
    });
    await h.client.workflow.getHandle(sourceId).terminate('wrong branch, stopping it');
    const ended = await agree('the terminated run to end', async () => {
      const s = await getSync(first);
      return s.status !== 'running' && s;
    });
    assert.equal(ended.status, 'cancelled');
    assert.match(ended.error ?? '', /^terminated in Temporal .*: wrong branch, stopping it$/);
    assert.equal(ended.progress_meta.phase, 'terminated');
    const terminated = await h.client.workflow.getHandle(sourceId).describe();

    // The source syncs again at once, and that newer sync completes.
    h.releaseSyncs();
    const second = await startSync(sourceId);
    await waitForEnd(h, second, 'completed');
    assert.equal((await graph.get<{ last_sync_id: string }>(`/api/sources/${sourceId}`)).body.last_sync_id, second);
    // Its execution closes a moment after the run completes (a Reset while it still runs would terminate it).
    await h.client.workflow.getHandle(sourceId).result();

    // Reset of the terminated execution to the task after beginSync: it runs the old run to the end.
    const history = await h.client.workflow.getHandle(sourceId, terminated.runId).fetchHistory();
    const evs = history.events ?? [];
    const begun = evs.findIndex((e) => e.activityTaskCompletedEventAttributes);
    const taskDone = evs.slice(begun).find((e) => e.workflowTaskCompletedEventAttributes);
    const reset = await h.client.workflowService.resetWorkflowExecution({
      namespace: testEnv.temporalNamespace,
      workflowExecution: { workflowId: sourceId, runId: terminated.runId },
      workflowTaskFinishEventId: taskDone!.eventId,
      requestId: randomUUID(),
      reason: 'operator: finish the old run after all',
    });
    await h.client.workflow.getHandle(sourceId, reset.runId ?? undefined).result();
    const revived = await agree('the reset run to complete', async () => {
      const s = await getSync(first);
      return s.status === 'completed' && s;
    });
    assert.equal(revived.error, null);
    const src = (await graph.get<{ last_sync_id: string }>(`/api/sources/${sourceId}`)).body;
    assert.equal(src.last_sync_id, second, 'last_sync_id stays on the newest completed sync');
    const d = await h.client.workflow.getHandle(sourceId).describe();
    assert.deepEqual(d.searchAttributes.CkgSyncStatus, ['completed']);
    // The terminated execution has none (it was `running` for good before), the second sync and the reset run
    // say completed.
    assert.deepEqual(await attributesTellTheTruth(sourceId, 3), [
      'COMPLETED:completed',
      'COMPLETED:completed',
      'TERMINATED:-',
    ]);
  });

  it('search attributes equal the database for every other way a run ends: cancel signal, Request Cancellation, timed out', async () => {
    h.holdSyncs();
    const sourceId = await source();
    // The API's cancel: the cancel signal.
    const bySignal = await startSync(sourceId);
    await waitForStatus(h, bySignal, 'running');
    const cancelled = await h.api<Sync>('POST', `/api/syncs/${bySignal}/cancel`, { reason: 'asked by alice' });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    await waitForEnd(h, bySignal, 'cancelled');
    // Request Cancellation in the UI.
    const byTemporal = await startSync(sourceId);
    await waitForStatus(h, byTemporal, 'running');
    await h.client.workflow.getHandle(sourceId).cancel();
    await waitForEnd(h, byTemporal, 'cancelled');
    // The execution closes (Canceled) a moment after the run ends: the next start by hand needs the id free.
    await assert.rejects(h.client.workflow.getHandle(sourceId).result());
    // Started by hand with an execution timeout (`temporal workflow start --execution-timeout`): Temporal closes it
    // as Timed Out without running workflow code; the watcher fails the run.
    const name = (
      await h.db.pool.query<{ n: string }>(`SELECT owner || '/' || name AS n FROM sources WHERE id = $1`, [sourceId])
    ).rows[0]!.n;
    const timedOut = await insertSync(h.db.pool, sourceId, 'pending');
    await h.client.workflow.start(SYNC_WORKFLOW_TYPE, {
      ...syncStartOptions({
        syncId: timedOut,
        sourceId,
        sourceName: name,
        ref: 'main',
        trigger: 'bob',
        taskQueue: h.taskQueue,
      }),
      workflowExecutionTimeout: '3s',
    });
    const ended = await agree('the timed-out run to end', async () => {
      const s = await getSync(timedOut);
      return s.status === 'failed' && s;
    });
    assert.match(ended.error ?? '', /timed out in Temporal/);
    assert.deepEqual(await attributesTellTheTruth(sourceId, 3), [
      'CANCELLED:cancelled',
      'COMPLETED:cancelled',
      'TIMED_OUT:-',
    ]);
  });

  it('Send Signal with bad inputs: each is recorded and ignored; a retry of a failed run shows queued, then runs', async () => {
    h.holdSyncs();
    const sourceId = await source('small');
    const earlier = await startSync(sourceId);
    await waitForEnd(h, earlier, 'completed');
    // A failed run of the source for the retry signal to name.
    await changeStatus(h.db.pool, { syncId: earlier, from: ['completed'], to: 'failed', error: 'an earlier failure' });
    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [sourceId, h.repos.slow.dir]);
    const current = await startSync(sourceId);
    await waitForStatus(h, current, 'running');
    const before = (await events(h, 'signal_rejected')).length;

    const handle = h.client.workflow.getHandle(sourceId);
    await handle.signal('retry'); // the dialog left empty
    await handle.signal('retry', null);
    await handle.signal('retry', { syncId: 'not-a-uuid' });
    await handle.signal('retry', { syncId: 42 });
    await handle.signal('retry', { syncId: randomUUID() }); // no run of this source
    await handle.signal('cancel', { reason: 5 });
    const rejected = await agree('six signal_rejected events', async () => {
      const e = (await events(h, 'signal_rejected')).slice(before);
      return e.length >= 6 && e;
    });
    assert.deepEqual(rejected.map((e) => e.payload.signal).sort(), [
      'cancel',
      'retry',
      'retry',
      'retry',
      'retry',
      'retry',
    ]);
    assert.ok(rejected.every((e) => e.source_id === sourceId && typeof e.payload.reason === 'string'));
    assert.equal((await getSync(current)).status, 'running', 'a bad cancel cancels nothing');

    await handle.signal(retrySignal, { syncId: earlier });
    const queued = await agree('the retried run to show queued', async () => {
      const s = await getSync(earlier);
      return s.progress_meta.phase === 'queued' && s;
    });
    assert.equal(queued.progress_meta.queue_position, 1);
    assert.equal(queued.progress_meta.queued_behind, current);

    h.releaseSyncs();
    await waitForEnd(h, current, 'completed');
    // The queued run is taken next (it stays failed until its turn).
    await waitForStatus(h, earlier, 'completed');
    // Nothing wedged: the source syncs again at once.
    const next = await startSync(sourceId);
    await waitForEnd(h, next, 'completed');
  });

  it('Schedules page: Pause, Unpause and Trigger show in GET /api/schedules and /api/syncs within 10 s', async () => {
    const sourceId = await source('small');
    const created = await h.api<Schedule>('POST', '/api/schedules', { source_id: sourceId, interval_minutes: 60 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const schedule = async () =>
      (await graph.get<{ items: Schedule[] }>(`/api/schedules?source_id=${sourceId}`)).body.items.find(
        (s) => s.id === id,
      );
    const temporalId = await temporalIdOfSchedule(h.db.pool, h.settings.scheduleIdPrefix, id);
    const handle = h.client.schedule.getHandle(temporalId);

    await handle.pause('paused by bob in the UI');
    await agree('the pause to show', async () => {
      const s = await schedule();
      return s?.enabled === false && s.next_run_at === null;
    });
    const adopted = (await events(h, 'schedule_changed')).filter((e) => e.payload.schedule_id === id).at(-1);
    assert.equal(adopted?.payload.by, 'temporal');
    assert.equal(adopted?.payload.note, 'paused by bob in the UI');

    await handle.unpause('bob again');
    await agree('the unpause to show', async () => {
      const s = await schedule();
      return s?.enabled === true && s.next_run_at !== null;
    });

    // Disabled through the API, then unpaused in the UI: Temporal runs it, so the API says so.
    const off = await h.api<Schedule>('PATCH', `/api/schedules/${id}`, { enabled: false });
    assert.equal(off.body.enabled, false);
    await handle.unpause();
    await agree('the unpause of an API-disabled schedule to show', async () => (await schedule())?.enabled === true);

    await handle.trigger();
    const run = await agree('the triggered run to show', async () => {
      const r = await graph.get<{ items: Sync[] }>(`/api/syncs?source_id=${sourceId}`);
      return r.body.items[0];
    });
    await waitForEnd(h, run.id, 'completed');
  });

  it("a scheduled tick whose sync cannot start fails its workflow: Temporal's Failed filter finds the failed run", async () => {
    const sourceId = await source('small');
    // As a race would leave it: a workflow with the source's id runs (on a queue no worker polls) while the database
    // has no active run, so the trigger's child start conflicts.
    const squatter = await h.client.workflow.start(SYNC_WORKFLOW_TYPE, {
      workflowId: sourceId,
      taskQueue: `nobody-${randomUUID()}`,
      args: [{ syncId: randomUUID(), sourceId }],
    });
    try {
      const row = await h.db.pool.query<{ id: string }>(
        `INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 60) RETURNING id`,
        [sourceId],
      );
      const trigger = await h.client.workflow.start(SCHEDULED_SYNC_WORKFLOW_TYPE, {
        workflowId: `trigger-${randomUUID()}`,
        taskQueue: h.taskQueue,
        args: [{ scheduleId: Number(row.rows[0]!.id), sourceId }],
      });
      await assert.rejects(
        trigger.result(),
        (err: unknown) =>
          err instanceof WorkflowFailedError &&
          err.cause instanceof ApplicationFailure &&
          err.cause.type === SYNC_NOT_STARTED,
      );
      const failed = await agree('the failed run to show', async () => {
        const r = await graph.get<{ items: Sync[] }>(`/api/syncs?source_id=${sourceId}`);
        return r.body.items.find((s) => s.status === 'failed');
      });
      assert.match(failed.error ?? '', /could not start the sync workflow/);
      const listed = await agree('the Failed filter to list it', async () => {
        const n = await h.client.workflow.count(`WorkflowId = '${trigger.workflowId}' AND ExecutionStatus = 'Failed'`);
        return n.count === 1;
      });
      assert.ok(listed);
    } finally {
      await squatter.terminate('test done');
    }
  });

  it('upgrade: a schedule made before its id named the repository (`<prefix><id>`) is renamed by the watcher, paused state and note kept', async () => {
    const sourceId = await source('small');
    const created = await h.api<Schedule>('POST', '/api/schedules', { source_id: sourceId, interval_minutes: 120 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = String(created.body.id);
    const named = await temporalIdOfSchedule(h.db.pool, h.settings.scheduleIdPrefix, id);
    // As a row and schedule made before V49: no temporal_id, the Temporal schedule `<prefix><id>`, paused in the UI.
    const legacy = `${h.settings.scheduleIdPrefix}${id}`;
    const name = String((await describeTemporalSchedule(h.client, named))?.memo?.source);
    await h.db.pool.query(
      `UPDATE schedules SET temporal_id = NULL, enabled = false, next_run_at = NULL WHERE id = $1`,
      [id],
    );
    await h.client.schedule.getHandle(named).delete();
    const row = await getSchedule(h.db.pool, id);
    assert.ok(row);
    await createTemporalSchedule(h.client, {
      ...scheduleSpec(h.settings, row, name),
      note: 'paused by carol before the upgrade',
    }).catch((err: unknown) => {
      // The watcher (every 300 ms here) may rename it between the create and the describe that follows it.
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    });

    const renamed = await agree('the watcher to rename the schedule', async () => {
      const r = await getSchedule(h.db.pool, id);
      return r?.temporal_id === named && (await describeTemporalSchedule(h.client, named));
    });
    assert.equal(renamed.state.paused, true);
    assert.equal(renamed.state.note, 'paused by carol before the upgrade');
    assert.deepEqual(renamed.action.type === 'startWorkflow' && renamed.action.args, [
      { scheduleId: Number(id), sourceId },
    ]);
    await agree('the old schedule to be gone', async () => !(await describeTemporalSchedule(h.client, legacy)));
    const s = (await graph.get<{ items: Schedule[] }>(`/api/schedules?source_id=${sourceId}`)).body.items[0];
    assert.equal(s?.enabled, false);
    assert.equal(s?.next_run_at, null);
    assert.equal((await h.db.pool.query(`SELECT 1 FROM schedule_intents WHERE schedule_id = $1`, [id])).rowCount, 0);
  });

  it('in headless Chromium, the Temporal UI: Pause on the Schedules page and Terminate on a workflow page show in the API', async () => {
    const ui = `${process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233'}/namespaces/${testEnv.temporalNamespace}`;
    h.holdSyncs();
    const sourceId = await source();
    const created = await h.api<Schedule>('POST', '/api/schedules', { source_id: sourceId, interval_minutes: 30 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const running = await startSync(sourceId);
    await waitForStatus(h, running, 'running');

    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(60_000);

      const temporalId = await temporalIdOfSchedule(h.db.pool, h.settings.scheduleIdPrefix, created.body.id);
      await page.goto(`${ui}/schedules/${temporalId}`);
      await page.getByRole('button', { name: 'Pause' }).first().click();
      const pause = page.locator('dialog[open]');
      await pause.getByTestId('pause-reason').fill('paused from the browser');
      await pause.getByRole('button', { name: 'Pause' }).click();
      await agree('the browser pause to show', async () => {
        const r = await graph.get<{ items: Schedule[] }>(`/api/schedules?source_id=${sourceId}`);
        const s = r.body.items.find((x) => x.id === created.body.id);
        return s?.enabled === false && s.next_run_at === null;
      });

      // The summary set at start names the repository, the ref and the trigger; UI 2.54 shows it (and the details) in
      // the workflow page's User Metadata tab (the page's title is the workflow id).
      const summary = await (await h.client.workflow.getHandle(sourceId).describe()).staticSummary();
      const name = (await graph.get<{ owner: string; name: string }>(`/api/sources/${sourceId}`)).body;
      assert.match(summary ?? '', new RegExp(`^sync ${name.owner}/${name.name} @ \\S+ \\(alice\\)$`));
      await page.goto(`${ui}/workflows/${sourceId}`);
      await page.getByText('User Metadata', { exact: true }).first().click();
      // The UI renders each metadata field as markdown in a frame of its own.
      await waitFor(
        'the summary in the User Metadata tab',
        async () => {
          for (const frame of page.frames()) {
            const text = await frame
              .locator('body')
              .innerText()
              .catch(() => '');
            if (summary && text.includes(summary)) return true;
          }
          return false;
        },
        60_000,
      );
      await page.getByRole('button', { name: 'More Actions' }).click();
      // The page holds a second, hidden copy of the actions menu.
      await page.getByText('Terminate', { exact: true }).filter({ visible: true }).first().click();
      const terminate = page.locator('dialog[open]');
      await terminate.getByTestId('workflow-termination-reason').fill('terminated from the browser');
      await terminate.getByRole('button', { name: 'Terminate' }).click();
      const ended = await agree('the browser terminate to show', async () => {
        const s = await getSync(running);
        return s.status !== 'running' && s;
      });
      assert.equal(ended.status, 'cancelled');
      assert.match(ended.error ?? '', /: terminated from the browser$/);
    } finally {
      await browser.close();
    }
  });
});
