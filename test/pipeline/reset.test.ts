/**
 * An operator's Reset in the Temporal UI: a sync that failed (its clone was refused) is reset to the point after
 * beginSync; the new execution takes the run back to running, runs the steps and completes it.
 */
import { syncWorkflowResult } from '../../workflows/sync-contract.ts';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRepo, MULTI_LANGUAGE_FILES, type TestRepo } from '../support/git-repos.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  startSync,
  type Harness,
} from '../support/pipeline.ts';
import { testEnv } from '../support/env.ts';
import type { syncWorkflow } from '../../workflows/sync.ts';

describe('Reset of a sync workflow', () => {
  let h: Harness;
  let repo: TestRepo;
  before(async () => {
    h = await createHarness();
    await h.startWorker();
    repo = createRepo(MULTI_LANGUAGE_FILES);
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  it('a failed run reset to after beginSync runs again and completes', async () => {
    const sourceId = await insertSource(h.db.pool, { url: '/nonexistent/repository' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const handle = await startSync(h, sourceId, syncId);
    assert.equal((await syncWorkflowResult(handle.result())).status, 'failed');
    assert.equal((await getRun(h.db.pool, syncId)).status, 'failed');

    await h.db.pool.query(`UPDATE sources SET url = $2 WHERE id = $1`, [sourceId, repo.dir]);
    const events = (await handle.fetchHistory()).events ?? [];
    const begun = events.findIndex((e) => e.activityTaskCompletedEventAttributes);
    const taskDone = events.slice(begun).find((e) => e.workflowTaskCompletedEventAttributes);
    assert.ok(taskDone?.eventId, 'the workflow task that followed beginSync');
    const described = await handle.describe();
    const reset = await h.client.workflowService.resetWorkflowExecution({
      namespace: testEnv.temporalNamespace,
      workflowExecution: { workflowId: sourceId, runId: described.runId },
      workflowTaskFinishEventId: taskDone.eventId,
      requestId: randomUUID(),
      reason: 'operator: the URL is fixed',
    });
    const result = await h.client.workflow.getHandle<typeof syncWorkflow>(sourceId, reset.runId ?? undefined).result();
    assert.equal(result.status, 'completed');
    const run = await getRun(h.db.pool, syncId);
    assert.equal(run.status, 'completed');
    assert.equal(run.error, null);
    const lifecycle = await h.db.pool.query<{ status: string }>(
      `SELECT payload->>'status' AS status FROM events WHERE sync_id = $1 AND type = 'sync_lifecycle' ORDER BY id`,
      [syncId],
    );
    assert.deepEqual(
      lifecycle.rows.map((r) => r.status),
      ['pending', 'running', 'failed', 'running', 'completed'],
    );
  });
});
