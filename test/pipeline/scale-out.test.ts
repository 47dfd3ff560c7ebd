/**
 * Scale-out: three worker processes (the project's worker entry point) share twelve syncs on one task queue. Every
 * sync completes, every worker runs activities, and a SIGKILL of the worker holding one sync's clone in the middle
 * of its batches still ends with the counts of a clean run of the same commit: the sync clones again on another
 * worker and resumes from the first batch not yet written.
 *
 * The kill lands at a chosen point without timing luck: the test holds an uncommitted row of the step ledger for
 * the big sync's second batch, so that batch's write transaction waits on it at its last statement (batch 1 written,
 * batch 2 done or not: the victim is mid-sync). Once the worker is dead the test rolls back; the dead worker's
 * transaction is never committed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { writeStep } from '../../activities/store/ledger.ts';
import type { syncWorkflow } from '../../workflows/sync.ts';
import type { SyncWorkflowResult } from '../../workflows/sync-types.ts';
import { createRepo, generatedFiles, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import {
  createHarness,
  insertPendingSync,
  insertSource,
  startSync,
  syncCounts,
  type Harness,
  type SyncCounts,
} from '../support/pipeline.ts';
import { waitFor } from '../support/wait.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { testEnv } from '../support/env.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const WORKERS = 3;
const SOURCES = 12;
/** The source whose worker is killed: 120 files, two batches (100 + 20: the workers' SYNC_BATCH_FILES is 100). */
const BIG = 0;

interface ActivityRun {
  type: string;
  taskQueue: string;
  input: Record<string, unknown>;
  /** `<pid>@<host>` of the worker that ran it (attempts that never finished have no identity). */
  identity: string | null;
}

/** The activities of a sync's history in scheduling order, with their input and the worker that ran them. */
async function activityRuns(handle: WorkflowHandle): Promise<ActivityRun[]> {
  const events: HistoryEvent[] = (await handle.fetchHistory()).events ?? [];
  const started = new Map<string, string>();
  for (const e of events) {
    const a = e.activityTaskStartedEventAttributes;
    if (a?.identity) started.set(String(a.scheduledEventId), a.identity);
  }
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => {
      const a = e.activityTaskScheduledEventAttributes!;
      const payload = a.input?.payloads?.[0];
      return {
        type: a.activityType?.name ?? '',
        taskQueue: a.taskQueue?.name ?? '',
        input: payload ? defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload) : {},
        identity: started.get(String(e.eventId)) ?? null,
      };
    });
}

function repoFiles(i: number): Record<string, string> {
  if (i === BIG) return generatedFiles(120);
  // Small repositories, each different: several languages plus a chain of TypeScript modules.
  return { ...MULTI_LANGUAGE_FILES, ...generatedFiles(5 + 3 * i), [`repo-${i}.md`]: `# Repository ${i}\n` };
}

describe('scale-out: three worker processes, twelve sources', () => {
  let h: Harness;
  let cloneDir: string;
  const repos: TestRepo[] = [];
  const sources: string[] = [];
  const workers: WorkerProcess[] = [];

  before(async () => {
    h = await createHarness();
    h.modelHost.setFaults({ latencyMs: 20 }, 'embeddings');
    cloneDir = mkdtempSync(join(tmpdir(), 'ckg-scale-clones-'));
    const env = {
      DATABASE_URL: h.db.url,
      DATABASE_POOL_SIZE: '6',
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_NAMESPACE: testEnv.temporalNamespace,
      TEMPORAL_TASK_QUEUE: h.taskQueue,
      EMBEDDING_URL: h.modelHost.embeddingUrl,
      EMBEDDING_BACKOFF_MS: '20',
      // All three share one clone folder, as compose's `clones` volume: each process keeps its own sub-folder.
      WORKER_CLONE_DIR: cloneDir,
      WORKER_MAX_CONCURRENT_ACTIVITIES: '4',
      SYNC_HEARTBEAT_TIMEOUT_SECONDS: '5',
      SYNC_HOST_QUEUE_TIMEOUT_SECONDS: '5',
      SYNC_ACTIVITY_ATTEMPTS: '10',
      SYNC_PARSE_THREADS: '1',
      // Batches of 100 files: the big source's 120 files are two batches, as 600 are at the default 500.
      SYNC_BATCH_FILES: '100',
    };
    const started = await Promise.allSettled(Array.from({ length: WORKERS }, () => startWorkerProcess(env)));
    for (const s of started) if (s.status === 'fulfilled') workers.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    for (let i = 0; i < SOURCES; i++) {
      const repo = createRepo(repoFiles(i));
      repos.push(repo);
      // Full syncs only: the clean run below must not reuse the first run's rows.
      sources.push(
        await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: `r${i}`, config: { incremental: false } }),
      );
    }
  });

  after(async () => {
    for (const w of workers) await w.kill();
    await h.close();
    for (const r of repos) r.remove();
    rmSync(cloneDir, { recursive: true, force: true });
  });

  it('all syncs complete on all workers; a killed worker costs nothing but time', async () => {
    const pids = workers.map((w) => w.child.pid!);
    const syncs = await Promise.all(sources.map((s) => insertPendingSync(h.db.pool, s)));
    const bigSync = syncs[BIG]!;

    // Hold the ledger row of the big sync's second batch (batch index 1).
    const holder = await h.db.pool.connect();
    let holding = true;
    await holder.query('BEGIN');
    // Without the foreign key's share lock on the run's row, which would also stop the run's other updates.
    await holder.query(`SET LOCAL session_replication_role = replica`);
    await holder.query(`INSERT INTO sync_steps (sync_id, step, result) VALUES ($1, $2, '{}')`, [bigSync, writeStep(1)]);
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

    let results: SyncWorkflowResult[];
    let handles: Array<WorkflowHandle<typeof syncWorkflow>>;
    let victim: WorkerProcess;
    let firstWrite: string;
    let cloneIndex: number;
    let victimQueue: string;
    try {
      handles = await Promise.all(sources.map((s, i) => startSync(h, s, syncs[i]!)));
      // The big sync's worker wrote batch 0 and waits on the held row with batch 1.
      await waitFor(
        'a write blocked by the holder',
        async () => {
          const r = await h.db.pool.query<{ query: string }>(
            `SELECT query FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
            [holderPid],
          );
          if (r.rows.some((b) => !b.query.includes('sync_steps'))) assert.fail(`held up: ${r.rows[0]!.query}`);
          return r.rowCount! > 0 ? true : undefined;
        },
        120_000,
        50,
      );
      const steps = await h.db.pool.query<{ step: string; done_at: string }>(
        `SELECT step, done_at::text FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %' ORDER BY step`,
        [bigSync],
      );
      assert.deepEqual(
        steps.rows.map((r) => r.step),
        [writeStep(0)],
        'batch 0 is written, batch 1 waits',
      );
      firstWrite = steps.rows[0]!.done_at;
      // The worker holding the clone is the one that ran the latest clone (a slow heartbeat may have made two).
      const sofar = await activityRuns(handles[BIG]!);
      cloneIndex = sofar.findLastIndex((a) => a.type === 'cloneRepository' && a.identity !== null);
      const clone = sofar[cloneIndex];
      victimQueue = sofar.slice(cloneIndex).find((a) => a.type === 'writeBatch')?.taskQueue ?? '';
      const victimPid = Number(clone?.identity?.split('@')[0]);
      const found = workers.find((w) => w.child.pid === victimPid);
      assert.ok(found, `the big sync was cloned by one of the workers (${clone?.identity ?? 'none'})`);
      victim = found;
      await victim.kill('SIGKILL');
      await holder.query('ROLLBACK');
      holding = false;
      results = await Promise.all(handles.map((hd) => hd.result()));
    } finally {
      if (holding) await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }

    for (const [i, r] of results.entries()) assert.equal(r.status, 'completed', `sync ${i}: ${JSON.stringify(r)}`);

    // Every worker process ran activities (Temporal records the identity `<pid>@<host>` of the worker).
    const runs = await Promise.all(handles.map((hd) => activityRuns(hd)));
    const byPid = new Map<number, number>();
    for (const a of runs.flat()) {
      if (a.identity === null) continue;
      const pid = Number(a.identity.split('@')[0]);
      byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
    }
    for (const pid of pids)
      assert.ok((byPid.get(pid) ?? 0) > 0, `worker ${pid} ran activities: ${JSON.stringify([...byPid])}`);

    // The big sync cloned again on a surviving worker, on that worker's own queue, and resumed at batch 1.
    const big = runs[BIG]!;
    const again = big.findIndex((a, i) => i > cloneIndex && a.type === 'cloneRepository' && a.identity !== null);
    assert.ok(again > cloneIndex, 'cloned again after the kill');
    assert.ok(!big[again]!.identity!.startsWith(`${victim.child.pid}@`), 'on another worker');
    assert.equal(big[again]!.input.fresh, false, 'the second clone keeps what was written');
    const next = big.findIndex((a, i) => i > again && a.type === 'cloneRepository');
    const resumed = big
      .slice(again + 1, next < 0 ? undefined : next)
      .filter((a) => a.type === 'parseBatch' || a.type === 'writeBatch');
    assert.deepEqual(
      resumed.map((a) => [a.type, a.input.batch]),
      [
        ['parseBatch', 1],
        ['writeBatch', 1],
      ],
      'resumed at the first batch not written',
    );
    for (const a of resumed) assert.notEqual(a.taskQueue, victimQueue, `${a.type} ran on the new clone's worker`);
    const ledger = await h.db.pool.query<{ step: string; done_at: string }>(
      `SELECT step, done_at::text FROM sync_steps WHERE sync_id = $1 AND step LIKE 'write %' ORDER BY step`,
      [bigSync],
    );
    assert.deepEqual(
      ledger.rows.map((r) => r.step),
      [writeStep(0), writeStep(1)],
    );
    assert.equal(ledger.rows[0]!.done_at, firstWrite, 'batch 0 was not written again');

    // A clean run of the same commit of every source, on the two surviving workers: the same counts.
    const disturbed: SyncCounts[] = await Promise.all(syncs.map((s) => syncCounts(h.db.pool, s)));
    assert.equal(disturbed[BIG]!.files, 120);
    const clean = await Promise.all(sources.map((s) => insertPendingSync(h.db.pool, s)));
    const cleanResults = await Promise.all(sources.map(async (s, i) => (await startSync(h, s, clean[i]!)).result()));
    for (const [i, r] of cleanResults.entries()) assert.equal(r.status, 'completed', `clean sync ${i}`);
    for (const [i, s] of clean.entries())
      assert.deepEqual(await syncCounts(h.db.pool, s), disturbed[i], `counts of source ${i}`);
  });
});
