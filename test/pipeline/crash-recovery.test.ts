/**
 * SIGKILL the worker process in the middle of each phase of one sync, start a new one each time: the sync completes
 * and its row, vector, vertex, edge and issue counts equal those of an undisturbed run. A step of the shared queue is
 * retried on the new worker; the batches, which live on the worker holding the clone, resume from a new clone on the
 * new worker.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCommit, createRepo, generatedFiles, type TestRepo } from '../support/git-repos.ts';
import { syncSnapshot } from '../support/sync-snapshot.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  startSync,
  syncCounts,
  type Harness,
} from '../support/pipeline.ts';
import { waitFor } from '../support/wait.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { testEnv } from '../support/env.ts';
import { RESOLVE_STEP } from '../../activities/store/ledger.ts';
import type { temporal } from '@temporalio/proto';

/** PendingActivityState.PENDING_ACTIVITY_STATE_STARTED: an attempt a worker took and has not finished. */
const STARTED: temporal.api.enums.v1.PendingActivityState = 2;

const PHASES = ['cloning', 'parsing', 'graphing', 'embedding_summaries', 'embedding_chunks'] as const;

/** Steps of this database waiting to record their ledger row behind a row another transaction holds. */
async function ledgerWaiters(h: Harness): Promise<number> {
  const w = await h.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO sync_steps%'`,
  );
  return w.rows[0]!.n;
}

describe('worker crash in each phase', () => {
  let h: Harness;
  let repo: TestRepo;
  let cloneDir: string;
  let worker: WorkerProcess | null = null;
  let env: Record<string, string>;

  before(async () => {
    h = await createHarness();
    h.modelHost.setFaults({ latencyMs: 150 }, 'embeddings');
    cloneDir = mkdtempSync(join(tmpdir(), 'ckg-crash-clones-'));
    repo = createRepo({
      ...generatedFiles(240),
      escape: { symlink: '/etc/passwd' },
      'bad.py': Buffer.concat([Buffer.from('x = "'), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]),
    });
    env = {
      DATABASE_URL: h.db.url,
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_NAMESPACE: testEnv.temporalNamespace,
      TEMPORAL_TASK_QUEUE: h.taskQueue,
      EMBEDDING_URL: h.modelHost.embeddingUrl,
      EMBEDDING_BACKOFF_MS: '20',
      EMBEDDING_BATCH_SIZE: '32',
      WORKER_CLONE_DIR: cloneDir,
      SYNC_HEARTBEAT_TIMEOUT_SECONDS: '2',
      SYNC_HOST_QUEUE_TIMEOUT_SECONDS: '3',
      SYNC_ACTIVITY_ATTEMPTS: '10',
      SYNC_PARSE_THREADS: '2',
      // Batches of 100 files: the 241 files are three batches of a full sync, as 1,201 are at the default 500.
      SYNC_BATCH_FILES: '100',
      LOG_LEVEL: 'info',
    };
    worker = await startWorkerProcess(env);
  });
  after(async () => {
    await worker?.kill();
    await h.close();
    repo.remove();
    rmSync(cloneDir, { recursive: true, force: true });
  });

  it('completes after a SIGKILL in every phase, one after another, with the counts of an undisturbed run', async () => {
    const baseSource = await insertSource(h.db.pool, { url: repo.dir });
    const baseSync = await insertPendingSync(h.db.pool, baseSource);
    const base = await (await startSync(h, baseSource, baseSync)).result();
    assert.equal(base.status, 'completed');
    const expected = await syncCounts(h.db.pool, baseSync);
    assert.equal(expected.files, 241);
    assert.equal(expected.files_with_vector, expected.files);
    assert.equal(expected.chunks_with_vector, expected.chunks);
    assert.ok(expected.issues >= 2, `issues of the undisturbed run: ${expected.issues}`);
    assert.equal(expected.depends_on, 239);

    // One sync, its worker killed once in each phase in turn (a run that lived through the earlier crashes): after
    // each, a new worker takes over and the run reaches the next phase; at the end its counts are those of the
    // undisturbed run. A step of the shared queue that was running is retried (an attempt > 1); the batches, which
    // live on the worker holding the clone, resume from a new clone.
    const sourceId = await insertSource(h.db.pool, { url: repo.dir });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    // The graphing phase is short (well under a second here), so the kill in it is placed without timing luck: this
    // transaction holds an uncommitted ledger row of the resolve step, and resolveDependencies, its edges written,
    // waits to record its own; the worker dies while it waits.
    const holder = await h.db.pool.connect();
    let holding = true;
    const letGo = async () => {
      if (!holding) return;
      holding = false;
      await holder.query('ROLLBACK');
      holder.release();
    };
    await holder.query('BEGIN');
    await holder.query(`INSERT INTO sync_steps (sync_id, step, result) VALUES ($1, $2, '{}')`, [syncId, RESOLVE_STEP]);
    const handle = await startSync(h, sourceId, syncId).catch(async (err: unknown) => {
      await letGo();
      throw err;
    });
    const clonesSoFar = async () =>
      ((await handle.fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'cloneRepository',
      ).length;
    /** Per crash: the activities the dead worker had started (Temporal's ids), checked once the run has ended. */
    const inFlightAt = new Map<string, string[]>();
    try {
      for (const [i, phase] of PHASES.entries()) await crashIn(i, phase);
    } finally {
      await letGo();
    }
    async function crashIn(i: number, phase: (typeof PHASES)[number]) {
      await waitFor(
        'the phase to kill in',
        async () => ((await getRun(h.db.pool, syncId)).progress_meta.phase === phase ? true : undefined),
        60_000,
        5,
      );
      if (phase === 'graphing') {
        await waitFor('the resolve step waiting on the held ledger row', async () => (await ledgerWaiters(h)) === 1);
      }
      await worker!.kill('SIGKILL');
      if (phase === 'graphing') await letGo();
      const atKill = await getRun(h.db.pool, syncId);
      assert.equal(atKill.progress_meta.phase, phase, `killed during ${phase}`);
      assert.equal(atKill.status, 'running');
      // The activities the dead worker was running: Temporal still has them started (until their heartbeat times
      // out). A kill can also fall between two activities of a short phase, when only the workflow task moves on.
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      inFlightAt.set(
        phase,
        pending.filter((a) => a.state === STARTED).map((a) => a.activityId!),
      );
      const clonesBefore = await clonesSoFar();
      worker = await startWorkerProcess(env);
      const next = PHASES[i + 1];
      // Recovered: the run went on to the next phase (or, after the last, ended).
      await waitFor(
        `the run to go on after the crash in ${phase}`,
        async () => {
          const run = await getRun(h.db.pool, syncId);
          return run.status !== 'running' || (next !== undefined && run.progress_meta.phase === next);
        },
        240_000,
        25,
      );
      if (phase === 'parsing') {
        // The batches lived on the killed worker: the sync cloned again on the new one and resumed there.
        assert.equal(await clonesSoFar(), clonesBefore + 1, 'cloned again after the worker holding the clone died');
      }
    }
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result));
    // Every step of the shared queue that a dead worker had started was retried: its one started event (written when
    // the step ends) has an attempt > 1. It is checked on the whole history, not when the next phase shows: a kill
    // can fall just after the step that writes the next phase started, and that step ends only later. (A step on the
    // worker's own queue, a batch or the clone's release, died with its clone: the clone count above covers it.)
    const events = (await handle.fetchHistory()).events ?? [];
    let retried = 0;
    for (const [phase, ids] of inFlightAt) {
      for (const id of ids) {
        const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityId === id)!;
        const { activityType, taskQueue } = scheduled.activityTaskScheduledEventAttributes!;
        if (taskQueue?.name !== h.taskQueue) continue;
        const started = events.find(
          (e) => e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled.eventId!.toString(),
        );
        assert.ok(
          (started?.activityTaskStartedEventAttributes?.attempt ?? 0) > 1,
          `${activityType?.name} (in flight at the crash in ${phase}) was retried: attempt ${started?.activityTaskStartedEventAttributes?.attempt}`,
        );
        retried++;
      }
    }
    assert.ok(retried > 0, `no crash fell inside a step of the shared queue: ${JSON.stringify([...inFlightAt])}`);
    assert.deepEqual(await syncCounts(h.db.pool, syncId), expected, 'counts after a crash in every phase');
    const run = await getRun(h.db.pool, syncId);
    assert.equal(run.issues_recorded, expected.issues);
  });

  it('a light re-sync killed while its two writes run completes equal to a full sync of the commit', async () => {
    const sourceId = await insertSource(h.db.pool, { url: repo.dir, name: 'light-crash' });
    const first = await insertPendingSync(h.db.pool, sourceId);
    assert.equal((await (await startSync(h, sourceId, first)).result()).status, 'completed');
    addCommit(repo, { 'src/m3.ts': 'export function f3(x: number): number {\n  return x;\n}\n' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    // Both writes do their work and then wait to record their ledger rows, which this transaction already holds
    // (uncommitted): the worker dies with two writes in flight.
    const blocker = await h.db.pool.connect();
    let handle: Awaited<ReturnType<typeof startSync>>;
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO sync_steps (sync_id, step, result) VALUES ($1, 'write 0000', '{}'), ($1, 'write 0001', '{}')`,
        [syncId],
      );
      handle = await startSync(h, sourceId, syncId);
      // Both writes waiting at once: they ran side by side (a light tree of 241 files is four batches of 100).
      await waitFor(
        "two writes waiting on the step ledger's lock",
        async () => ((await ledgerWaiters(h)) === 2 ? true : undefined),
        60_000,
        20,
      );
      await worker!.kill('SIGKILL');
      worker = await startWorkerProcess(env);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    const result = await handle.result();
    assert.equal(result.status, 'completed', JSON.stringify(result));
    const events = (await handle.fetchHistory()).events ?? [];
    const clones = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'cloneRepository',
    );
    assert.equal(clones.length, 2, 'cloned again after the worker holding the clone died');

    const full = await insertSource(h.db.pool, {
      url: repo.dir,
      name: 'light-crash-full',
      config: { incremental: false },
    });
    const reference = await insertPendingSync(h.db.pool, full);
    assert.equal((await (await startSync(h, full, reference)).result()).status, 'completed');
    assert.deepEqual(await syncCounts(h.db.pool, syncId), await syncCounts(h.db.pool, reference));
    const [x, y] = [await syncSnapshot(h.db.pool, syncId), await syncSnapshot(h.db.pool, reference)];
    for (const key of Object.keys(x) as Array<keyof typeof x>) assert.deepEqual(x[key], y[key], `${key} differ`);
  });
});
