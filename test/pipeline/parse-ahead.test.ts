/**
 * The batch pipeline's look-ahead: while a write is held up, the parse goes on for two more batches and no further;
 * writes stay one at a time and in batch order; once the write goes through, the sync finishes with every file.
 * The write of the first batch is held by a real table lock on file_contents (its first insert), not a fake.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { syncWorkflow } from '../../workflows/sync.ts';
import { createRepo, generatedFiles, type TestRepo } from '../support/git-repos.ts';
import { waitForLockWait } from '../support/db.ts';
import {
  createHarness,
  insertPendingSync,
  insertSource,
  startSync,
  syncCounts,
  type Harness,
} from '../support/pipeline.ts';
import { waitFor } from '../support/wait.ts';

type Event = temporal.api.history.v1.IHistoryEvent;

interface Step {
  type: string;
  batch: number;
  scheduledId: number;
  /** Event id of the completion, or null while running. */
  completedId: number | null;
}

/** The parse and write steps of the history, in scheduling order, with whether each has completed. */
function batchSteps(events: Event[]): Step[] {
  const steps = new Map<number, Step>();
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    const type = s?.activityType?.name;
    if (s && (type === 'parseBatch' || type === 'writeBatch')) {
      const input = JSON.parse(Buffer.from(s.input!.payloads![0]!.data!).toString('utf8')) as { batch: number };
      const id = Number(e.eventId);
      steps.set(id, { type, batch: input.batch, scheduledId: id, completedId: null });
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const step = steps.get(Number(done.scheduledEventId));
      if (step) step.completedId = Number(e.eventId);
    }
  }
  return [...steps.values()];
}

describe('parse look-ahead of the batch pipeline', () => {
  let h: Harness;
  let repo: TestRepo;
  before(async () => {
    // Batches of 100 files (the worker's SYNC_BATCH_FILES), so 420 files make five batches.
    h = await createHarness({ batchFiles: 100 });
    await h.startWorker();
    repo = createRepo(generatedFiles(420));
  });
  after(async () => {
    await h.close();
    repo.remove();
  });

  it('parses two batches ahead of a held-up write and no further; writes in order; every file lands', async () => {
    const sourceId = await insertSource(h.db.pool, {
      url: repo.dir,
      owner: 'acme',
      name: 'ahead',
      config: { embeddings: false },
    });
    const syncId = await insertPendingSync(h.db.pool, sourceId);
    const lock = await h.db.pool.connect();
    let locked = false;
    let handle: WorkflowHandle<typeof syncWorkflow>;
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE file_contents IN EXCLUSIVE MODE');
      locked = true;
      handle = await startSync(h, sourceId, syncId);
      await waitForLockWait(
        h.db.pool,
        `query LIKE '%INSERT INTO file_contents%'`,
        'the first write never waited for the lock',
        120_000,
      );
      // The parses of batches 1 and 2 finish while the write of batch 0 waits, and the workflow has decided what
      // comes next (a workflow task completed after the second of them): no parse of batch 3 was scheduled.
      const events = await waitFor(
        'parse 2 completed and the write decided',
        async () => {
          const history = (await handle.fetchHistory()).events ?? [];
          const steps = batchSteps(history);
          const parse2 = steps.find((s) => s.type === 'parseBatch' && s.batch === 2 && s.completedId !== null);
          if (!parse2) return undefined;
          const decided = history.some(
            (e) => e.workflowTaskCompletedEventAttributes && Number(e.eventId) > parse2.completedId!,
          );
          return decided ? history : undefined;
        },
        120_000,
        250,
      );
      const held = batchSteps(events);
      assert.deepEqual(
        held.map((s) => [s.type, s.batch, s.completedId !== null]),
        [
          ['parseBatch', 0, true],
          ['writeBatch', 0, false],
          ['parseBatch', 1, true],
          ['parseBatch', 2, true],
        ],
      );
      await lock.query('ROLLBACK');
      locked = false;
    } finally {
      if (locked) await lock.query('ROLLBACK');
      lock.release();
    }

    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal((await syncCounts(h.db.pool, syncId)).files, 420);
    const steps = batchSteps((await handle.fetchHistory()).events ?? []);
    const writes = steps.filter((s) => s.type === 'writeBatch').map((s) => s.batch);
    const parses = steps.filter((s) => s.type === 'parseBatch').map((s) => s.batch);
    assert.deepEqual(parses, [0, 1, 2, 3, 4]);
    assert.deepEqual(writes, [0, 1, 2, 3, 4]);
    for (let b = 0; b < 5; b++) {
      const parse = steps.findIndex((s) => s.type === 'parseBatch' && s.batch === b);
      const write = steps.findIndex((s) => s.type === 'writeBatch' && s.batch === b);
      assert.ok(parse < write, `batch ${b} is written after it is parsed`);
      // Never more than two batches ahead: the parse of b is scheduled after the write of b - 3 completed.
      if (b >= 3) {
        const behind = steps.find((s) => s.type === 'writeBatch' && s.batch === b - 3)!;
        assert.ok(behind.completedId! < steps[parse]!.scheduledId, `parse ${b} after write ${b - 3} completed`);
      }
      // Writes one at a time: the write of b is scheduled after the write of b - 1 completed.
      if (b >= 1) {
        const previous = steps.find((s) => s.type === 'writeBatch' && s.batch === b - 1)!;
        assert.ok(previous.completedId! < steps[write]!.scheduledId, `write ${b} after write ${b - 1} completed`);
      }
    }
  });
});
