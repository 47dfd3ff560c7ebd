/**
 * Records the workflow histories the replay test (test/pipeline/replay.test.ts) replays: a completed sync of a
 * three-batch repository (the parse running two batches ahead of the writes, the symbol graph, the precise tier's
 * plan: the worker plans it, no precise worker takes it), a re-sync of the same commit (a light tree: its writes two
 * at a time, the idle embedding steps left out), a failed sync (clone refused), a sync that receives bad signals (an
 * empty retry, a retry naming no UUID, a cancel with a number for its reason) and a retry of an earlier failed run
 * that it queues, and the schedules' trigger workflow starting a sync. Together they hold a marker of every patch
 * the sync workflow has (`core_patch` events). Run it against the local stack when a workflow change is meant to
 * change histories (then say so in the commit); the files are named after the day (`sync-completed-2026-11-27`) and
 * every earlier day's stay, so the code keeps replaying the workflows each version started:
 *
 *   set -a; source .stack/env; set +a; node --import tsx scripts/capture-histories.ts
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { createRepo, generatedFiles } from '../test/support/git-repos.ts';
import { createHarness, insertPendingSync, insertSource, startSync } from '../test/support/pipeline.ts';
import { changeStatus } from '../lib/sync-runs/index.ts';
import { retrySignal, SCHEDULED_SYNC_WORKFLOW_TYPE } from '../workflows/sync-contract.ts';

const OUT = new URL('../test/fixtures/histories/', import.meta.url);
// A second capture on the same day names itself (CAPTURE_TAG=2026-11-28-precise-early), so the day's first stays.
const DAY = process.env.CAPTURE_TAG ?? new Date().toISOString().slice(0, 10);
const CLI =
  process.env.TEMPORAL_CLI ??
  join(process.env.CKG_CACHE_DIR ?? join(homedir(), '.cache', 'ckg'), 'temporal-1.9.1', 'bin', 'temporal');

async function save(name: string, handle: WorkflowHandle): Promise<void> {
  await handle.result().catch(() => undefined);
  // The CLI's JSON is the form Temporal's own tools export and historyFromJSON reads.
  const json = execFileSync(
    CLI,
    [
      'workflow',
      'show',
      '--address',
      process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      '--namespace',
      process.env.TEMPORAL_NAMESPACE ?? 'default',
      '--workflow-id',
      handle.workflowId,
      '--output',
      'json',
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  writeFileSync(new URL(`${name}-${DAY}.json`, OUT), json);
  console.log(`${name}: ${(JSON.parse(json) as { events: unknown[] }).events.length} events`);
}

async function main() {
  // The precise tier planned as in production (SYNC_PRECISE on); with no precise worker its plan skips every language.
  const h = await createHarness({ precise: true });
  // Over MIN_SPLIT_FILES files: a re-sync of the same commit is a light tree (activities/sync/helpers/workspace.ts batchPlan).
  const repo = createRepo(generatedFiles(1100));
  try {
    await h.startWorker();
    const ok = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'demo' });
    await save('sync-completed', await startSync(h, ok, await insertPendingSync(h.db.pool, ok)));
    await save('sync-light', await startSync(h, ok, await insertPendingSync(h.db.pool, ok)));

    const bad = await insertSource(h.db.pool, { url: '/nonexistent/repository', owner: 'acme', name: 'gone' });
    await save('sync-failed', await startSync(h, bad, await insertPendingSync(h.db.pool, bad)));

    // Bad signals are rejected (signal_rejected events); a retry of the source's failed run is queued and run next.
    const sig = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'signals' });
    const earlier = await insertPendingSync(h.db.pool, sig);
    await changeStatus(h.db.pool, { syncId: earlier, from: ['pending'], to: 'failed', error: 'an earlier failure' });
    h.modelHost.setFaults({ latencyMs: 300 }, 'embeddings');
    const signalled = await startSync(h, sig, await insertPendingSync(h.db.pool, sig));
    await signalled.signal('retry');
    await signalled.signal('retry', null);
    await signalled.signal('retry', { syncId: 'not-a-uuid' });
    await signalled.signal('cancel', { reason: 5 });
    await signalled.signal(retrySignal, { syncId: earlier });
    await save('sync-signals', signalled);
    h.modelHost.setFaults({ latencyMs: 0 }, 'embeddings');

    const src = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'scheduled' });
    const sched = await h.db.pool.query<{ id: string }>(
      `INSERT INTO schedules (source_id, interval_minutes) VALUES ($1, 60) RETURNING id`,
      [src],
    );
    const trigger = await h.client.workflow.start(SCHEDULED_SYNC_WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `sched-capture-${sched.rows[0]!.id}`,
      args: [{ scheduleId: Number(sched.rows[0]!.id), sourceId: src }],
    });
    await save('scheduled-trigger', trigger);
    await h.client.workflow.getHandle(src).result();
  } finally {
    await h.close();
    repo.remove();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
