/**
 * What an operator sees in the Temporal UI: the workflow's summary and details, one named activity per step with a
 * summary, the search attributes the UI filters on (and that the stack and compose register), the progress query.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { SEARCH_ATTRIBUTES, progressQuery, syncWorkflowResult } from '../../workflows/sync-contract.ts';
import type { syncWorkflow } from '../../workflows/sync.ts';
import { createRepo, generatedFiles, type TestRepo } from '../support/git-repos.ts';
import {
  createHarness,
  getRun,
  insertPendingSync,
  insertSource,
  startSync,
  type Harness,
} from '../support/pipeline.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = new URL('../../', import.meta.url);

async function activitySteps(handle: WorkflowHandle): Promise<Array<{ type: string; summary: string }>> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => ({
      type: e.activityTaskScheduledEventAttributes!.activityType!.name!,
      summary: e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : '',
    }));
}

describe('operator view of a sync in the Temporal UI', () => {
  let h: Harness;
  let repo: TestRepo;
  before(async () => {
    // Batches of 100 files (the worker's SYNC_BATCH_FILES), so 220 files make three batches.
    h = await createHarness({ batchFiles: 100 });
    await h.startWorker();
    repo = createRepo(generatedFiles(220));
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  it('the stack script and compose register exactly the search attributes the workflow sets', () => {
    const names = SEARCH_ATTRIBUTES.map((k) => k.name).sort();
    const script = readFileSync(new URL('scripts/stack/temporal.sh', ROOT), 'utf8');
    const fromScript = [
      ...(/TEMPORAL_SEARCH_ATTRIBUTES=\(([^)]*)\)/.exec(script)?.[1] ?? '').matchAll(/(\w+)=Keyword/g),
    ]
      .map((m) => m[1]!)
      .sort();
    assert.deepEqual(fromScript, names);
    const compose = readFileSync(new URL('docker-compose.yml', ROOT), 'utf8');
    const fromCompose = (/for a in ([\w ]+); do/.exec(compose)?.[1] ?? '').trim().split(/\s+/).sort();
    assert.deepEqual(fromCompose, names);
  });

  it('names the sync, one summarised activity per step, search attributes and a progress query', async () => {
    // Each embedding request answers after 1.5 s: the summaries phase (220 inputs, 4 requests at once) lasts that long.
    h.modelHost.setFaults({ latencyMs: 1500 }, 'embeddings');
    const sourceId = await insertSource(h.db.pool, { url: repo.dir, owner: 'acme', name: 'big' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    let handle: WorkflowHandle<typeof syncWorkflow>;
    try {
      handle = await startSync(h, sourceId, syncId);
      await waitFor(
        'the embedding_summaries phase',
        async () =>
          (await getRun(h.db.pool, syncId)).progress_meta.phase === 'embedding_summaries' ? true : undefined,
        120_000,
        25,
      );
      const mid = await handle.query(progressQuery);
      assert.equal(mid.syncId, syncId);
      assert.equal(mid.phase, 'embedding_summaries');
      assert.equal(mid.total, 220, 'files to embed');
      const running = await handle.describe();
      // No CkgSyncStatus while the run is active (ExecutionStatus says Running): only an ending sets it.
      assert.equal(running.searchAttributes.CkgSyncStatus, undefined);
      assert.equal(running.status.name, 'RUNNING');
    } finally {
      h.modelHost.setFaults({ latencyMs: 0 }, 'embeddings');
    }
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.deepEqual(await handle.query(progressQuery), { syncId, phase: 'completed', done: 1, total: 1 });

    const d = await handle.describe();
    assert.equal(await d.staticSummary(), 'sync acme/demo @ main (test)');
    const details = (await d.staticDetails()) ?? '';
    for (const part of ['acme/demo', sourceId, 'main', syncId, 'test']) assert.ok(details.includes(part), part);
    const sa = d.searchAttributes as Record<string, unknown[]>;
    assert.deepEqual(sa.CkgSourceOwner, ['acme']);
    assert.deepEqual(sa.CkgSourceName, ['acme/demo']);
    assert.deepEqual(sa.CkgSyncStatus, ['completed']);

    const steps = await activitySteps(handle);
    const types = steps.map((s) => s.type);
    // Parses and writes run side by side, the parse up to two batches ahead (test/pipeline/parse-ahead.test.ts): a
    // write is scheduled with the next parse, later ones as timing has it; three of each.
    const middle = types.slice(2, 8);
    assert.deepEqual(middle.slice(0, 3), ['parseBatch', 'writeBatch', 'parseBatch']);
    assert.deepEqual([...middle].sort(), [
      'parseBatch',
      'parseBatch',
      'parseBatch',
      'writeBatch',
      'writeBatch',
      'writeBatch',
    ]);
    assert.deepEqual(
      [...types.slice(0, 2), ...types.slice(8)],
      [
        'beginSync',
        'cloneRepository',
        'releaseWorkspace',
        'resolveSymbols',
        'resolveDependencies',
        'embedFiles',
        'embedChunks',
        'finalizeSync',
      ],
    );
    for (const s of steps) assert.ok(s.summary.length > 0, `${s.type} has a summary`);
    const parses = steps.filter((s) => s.type === 'parseBatch').map((s) => s.summary);
    assert.deepEqual(parses, [
      'parse 220 files, batch 1/3 (files 1-100)',
      'parse 220 files, batch 2/3 (files 101-200)',
      'parse 220 files, batch 3/3 (files 201-220)',
    ]);
    assert.equal(steps[1]!.summary, 'clone acme/big at main');
  });

  it('the UI finds failed syncs of an owner by search attributes and in its own Failed filter', async () => {
    const sourceId = await insertSource(h.db.pool, { url: '/nonexistent/repo', owner: 'acme', name: 'gone' });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const handle = await startSync(h, sourceId, syncId);
    assert.equal((await syncWorkflowResult(handle.result())).status, 'failed');
    const query = `CkgSourceOwner = 'acme' AND CkgSyncStatus = 'failed' AND ExecutionStatus = 'Failed' AND TaskQueue = '${h.taskQueue}'`;
    const found = await waitFor(
      'the Failed filter to list the sync',
      async () => {
        const ids: string[] = [];
        for await (const wf of h.client.workflow.list({ query })) ids.push(wf.workflowId);
        return ids.includes(sourceId) ? ids : undefined;
      },
      15_000,
      25,
    );
    assert.ok(found.includes(sourceId));
    const d = await handle.describe();
    assert.equal(d.status.name, 'FAILED', 'a failed sync is a failed workflow execution');
    assert.deepEqual((d.searchAttributes as Record<string, unknown[]>).CkgSyncStatus, ['failed']);
    const failure = await handle.result().catch((err: unknown) => (err instanceof Error ? err.cause : err));
    assert.match(String((failure as Error).message), /cloning .*nonexistent.* failed/, 'the run error is the failure');
  });
});
