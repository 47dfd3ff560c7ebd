/**
 * The workflow's signals, once it has checked their form (workflows/sync-contract.ts): `queueRetry` queues a run a
 * `retry` signal names when it is a failed or cancelled run of the source (its queued state in progress_meta and a
 * `sync_queued` event), else rejects it; `recordRejectedSignal` records a signal the workflow ignores (a
 * `signal_rejected` event and a log line), so a bad input typed into the Temporal UI is seen, never silent.
 */
import { withTransaction, type Queryable } from '../../lib/db.ts';
import { writeEvent } from '../../lib/events.ts';
import { loadRun, markQueued } from '../../lib/sync-runs/index.ts';
import type { QueueRetryInput, QueueRetryResult, RejectedSignalInput } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';

async function writeRejection(db: Queryable, r: RejectedSignalInput): Promise<void> {
  await writeEvent(db, {
    type: 'signal_rejected',
    sourceId: r.sourceId,
    syncId: r.syncId,
    payload: { source_id: r.sourceId, sync_id: r.syncId, signal: r.signal, input: r.input, reason: r.reason },
  });
}

export function createSignalActivities({ pool, log }: Pick<ActivityDeps, 'pool' | 'log'>) {
  async function recordRejectedSignal(input: RejectedSignalInput): Promise<void> {
    await writeRejection(pool, input);
    log.warning('signal_rejected', {
      source_id: input.sourceId,
      sync_id: input.syncId,
      signal: input.signal,
      input: input.input,
      reason: input.reason,
    });
  }

  async function queueRetry(input: QueueRetryInput): Promise<QueueRetryResult> {
    const result = await withTransaction(pool, async (tx): Promise<QueueRetryResult> => {
      const run = await loadRun(tx, input.syncId, true);
      let reason: string | null = null;
      if (!run || run.source_id !== input.sourceId) reason = `no sync ${input.syncId} of this source`;
      else if (!(await markQueued(tx, input.syncId, { position: input.position, behind: input.behind })))
        reason = `sync ${input.syncId} is ${run.status}; only a failed or cancelled sync can be retried`;
      if (reason === null) return { queued: true };
      await writeRejection(tx, {
        sourceId: input.sourceId,
        syncId: input.behind,
        signal: 'retry',
        input: JSON.stringify({ syncId: input.syncId }),
        reason,
      });
      return { queued: false, reason };
    });
    if (result.queued)
      log.info('sync_retry_queued', { sync_id: input.syncId, source_id: input.sourceId, position: input.position });
    else
      log.warning('signal_rejected', {
        source_id: input.sourceId,
        signal: 'retry',
        sync_id: input.syncId,
        reason: result.reason,
      });
    return result;
  }

  return { queueRetry, recordRejectedSignal };
}
