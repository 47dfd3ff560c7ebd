import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { SYNC_WORKFLOW_TYPE, cancelSignal, syncRetryOptions } from '../../workflows/sync-contract.ts';
import type { SyncWorkflowResult } from '../../workflows/sync-types.ts';
import { createRepo, generatedFiles, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  runSync,
  startSync,
  syncCounts,
  type Harness,
} from '../support/pipeline.ts';
import { waitFor } from '../support/wait.ts';

async function lifecycle(h: Harness, syncId: string) {
  const r = await h.db.pool.query<{ payload: Record<string, unknown> }>(
    `SELECT payload FROM events WHERE sync_id = $1 AND type = 'sync_lifecycle' ORDER BY id`,
    [syncId],
  );
  return r.rows.map((e) => e.payload);
}

async function waitForPhase(h: Harness, syncId: string, phase: string) {
  await waitFor(
    `phase ${phase}`,
    async () => ((await getRun(h.db.pool, syncId)).progress_meta.phase === phase ? true : undefined),
    120_000,
    25,
  );
}

async function setPendingAgain(h: Harness, syncId: string) {
  await h.db.pool.query(`UPDATE sync_runs SET status = 'pending', error = NULL, completed_at = NULL WHERE id = $1`, [
    syncId,
  ]);
}

describe('cancel, retry and refusal', () => {
  let h: Harness;
  let big: TestRepo;
  let small: TestRepo;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    big = createRepo(generatedFiles(400));
    small = createRepo(MULTI_LANGUAGE_FILES);
  });
  after(async () => {
    await h.close();
    big.remove();
    small.remove();
  });

  it('cancel signal: stops the running activity promptly, ends the run cancelled with the reason, cleans nothing', async () => {
    h.modelHost.setFaults({ latencyMs: 400 }, 'embeddings');
    try {
      const sourceId = await insertSource(h.db.pool, { url: big.dir });
      const syncId = await insertPendingSync(h.db.pool, sourceId);
      const handle = await startSync(h, sourceId, syncId);
      await waitForPhase(h, syncId, 'embedding_summaries');
      const t0 = Date.now();
      await handle.signal(cancelSignal, { reason: 'operator asked' });
      const result = await handle.result();
      const elapsed = Date.now() - t0;
      assert.equal(result.status, 'cancelled');
      assert.ok(elapsed < 5000, `cancelled within ${elapsed} ms`);
      const run = await getRun(h.db.pool, syncId);
      assert.equal(run.status, 'cancelled');
      assert.equal(run.error, 'operator asked');
      assert.ok(run.completed_at);
      const events = await lifecycle(h, syncId);
      assert.deepEqual(
        events.map((e) => e.status),
        ['pending', 'running', 'cancelled'],
      );
      assert.equal(events[2]!.previous_status, 'running');
      assert.equal(events[2]!.error, 'operator asked');
      const counts = await syncCounts(h.db.pool, syncId);
      assert.equal(counts.files, 400, 'rows written before the cancel are kept');
      assert.equal(counts.file_vertices, 400);
      // The activity stopped: it acknowledged the cancel (the steps wait for that: WAIT_CANCELLATION_COMPLETED, so
      // its ActivityTaskCanceled is in the history before the run ended), and no event of the sync follows the run's
      // cancelled lifecycle event, which was written after the activity returned.
      const history = (await handle.fetchHistory()).events ?? [];
      assert.ok(
        history.some((e) => e.activityTaskCanceledEventAttributes),
        'the running activity acknowledged the cancel',
      );
      const later = await h.db.pool.query<{ type: string }>(
        `SELECT type FROM events
          WHERE sync_id = $1
            AND id > (SELECT max(id) FROM events WHERE sync_id = $1 AND type = 'sync_lifecycle')`,
        [syncId],
      );
      assert.deepEqual(later.rows, [], 'nothing written after the cancel');
      const src = await h.db.pool.query<{ last_sync_id: string | null }>(
        `SELECT last_sync_id FROM sources WHERE id = $1`,
        [sourceId],
      );
      assert.equal(src.rows[0]!.last_sync_id, null);
    } finally {
      h.modelHost.setFaults({ latencyMs: 0 }, 'embeddings');
    }
  });

  it('Temporal cancellation (handle.cancel) also ends the run cancelled; a retry then runs it from scratch', async () => {
    h.modelHost.setFaults({ latencyMs: 400 }, 'embeddings');
    const sourceId = await insertSource(h.db.pool, { url: big.dir });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    try {
      const handle = await startSync(h, sourceId, syncId);
      await waitForPhase(h, syncId, 'embedding_summaries');
      await handle.cancel();
      await assert.rejects(handle.result(), (err: unknown) => err instanceof WorkflowFailedError);
      const run = await getRun(h.db.pool, syncId);
      assert.equal(run.status, 'cancelled');
      assert.equal(run.error, 'cancelled through Temporal');
    } finally {
      h.modelHost.setFaults({ latencyMs: 0 }, 'embeddings');
    }
    await setPendingAgain(h, syncId);
    const retry = await h.client.workflow.signalWithStart(
      SYNC_WORKFLOW_TYPE,
      syncRetryOptions({
        syncId,
        sourceId,
        sourceName: 'acme/big',
        ref: 'main',
        trigger: 'test',
        taskQueue: h.taskQueue,
      }),
    );
    const result = (await retry.result()) as SyncWorkflowResult;
    assert.equal(result.status, 'completed', JSON.stringify(result));
    assert.equal(result.runs.length, 1, 'the retry signal of the run being started does not run it twice');
    const counts = await syncCounts(h.db.pool, syncId);
    assert.equal(counts.files, 400);
    assert.equal(counts.files_with_vector, 400);
    assert.equal(counts.chunks_with_vector, counts.chunks);
    assert.equal(counts.file_vertices, 400);
    assert.equal(counts.depends_on, 399);
  });

  it('retry of a failed sync: runs again with the same id, its earlier issues replaced', async () => {
    const sourceId = await insertSource(h.db.pool, { url: '/nonexistent/repository/path' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const failed = await runSync(h, sourceId, syncId);
    assert.equal(failed.status, 'failed');
    let run = await getRun(h.db.pool, syncId);
    assert.equal(run.status, 'failed');
    assert.match(run.error ?? '', /cloning .*nonexistent.* failed: the repository cannot be reached/);
    const issues = await h.db.pool.query(`SELECT phase, level, code FROM sync_issues WHERE sync_id = $1`, [syncId]);
    assert.deepEqual(issues.rows, [{ phase: 'cloning', level: 'error', code: 'clone_unreachable' }]);

    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [sourceId, small.dir]);
    await setPendingAgain(h, syncId);
    const retry = await h.client.workflow.signalWithStart(
      SYNC_WORKFLOW_TYPE,
      syncRetryOptions({
        syncId,
        sourceId,
        sourceName: 'acme/small',
        ref: 'main',
        trigger: 'test',
        taskQueue: h.taskQueue,
      }),
    );
    const result = (await retry.result()) as SyncWorkflowResult;
    assert.equal(result.status, 'completed');
    run = await getRun(h.db.pool, syncId);
    assert.equal(run.status, 'completed');
    assert.equal(run.error, null);
    const counts = await syncCounts(h.db.pool, syncId);
    assert.equal(counts.files, Object.keys(MULTI_LANGUAGE_FILES).length);
    assert.equal(counts.issues, 0, 'the clone issue of the failed attempt is gone');
    assert.equal(run.issues_recorded, 0);
    const events = await lifecycle(h, syncId);
    assert.deepEqual(
      events.map((e) => e.status),
      ['pending', 'running', 'failed', 'running', 'completed'],
    );
  });

  it('a disabled source starts no sync: the run fails with a clear error', async () => {
    const sourceId = await insertSource(h.db.pool, { url: small.dir, owner: 'acme', name: 'off', enabled: false });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const result = await runSync(h, sourceId, syncId);
    assert.equal(result.status, 'failed');
    const run = await getRun(h.db.pool, syncId);
    assert.equal(run.status, 'failed');
    assert.equal(run.error, 'source acme/off is disabled: it starts no sync');
    assert.equal((await syncCounts(h.db.pool, syncId)).files, 0);
    const events = await lifecycle(h, syncId);
    assert.deepEqual(
      events.map((e) => e.status),
      ['pending', 'failed'],
    );
  });

  it('search attributes and memo let an operator find the sync', async () => {
    const sourceId = await insertSource(h.db.pool, { url: small.dir });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const handle = await startSync(h, sourceId, syncId);
    await handle.result();
    const d = await handle.describe();
    assert.equal(d.workflowId, sourceId);
    assert.equal(d.type, 'syncWorkflow');
    const sa = d.searchAttributes as Record<string, unknown[]>;
    assert.deepEqual(sa.CkgSourceId, [sourceId]);
    assert.deepEqual(sa.CkgSyncId, [syncId]);
    assert.deepEqual(sa.CkgSourceName, ['acme/demo']);
    assert.deepEqual(sa.CkgTrigger, ['test']);
    const memo = d.memo as Record<string, unknown>;
    assert.equal(memo.sync_id, syncId);
  });
});
