/**
 * Retry: a failed or cancelled run goes back to `pending` (same id; error, progress, stats and times cleared) with
 * its lifecycle event, then `retry { syncId }` is signalled-with-start to the source's workflow, which runs it from
 * scratch. The partial unique index refuses the move when the source has another active run (409 CONFLICT).
 */
import { withTransaction, isUniqueViolation } from '../../../lib/db.ts';
import { FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import type { SyncRunRow, SyncStatus } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';
import { requireTemporal, temporalUnavailable } from '../temporal-gate.ts';
import { getSource, sourceName } from '../../../lib/sources.ts';
import { activeSyncConflict } from './create.ts';
import { changeStatus, getSync, ONE_ACTIVE_INDEX } from '../../../lib/sync-runs/index.ts';
import { signalRetry } from './workflow.ts';

const RETRYABLE: readonly SyncStatus[] = ['failed', 'cancelled'];

export async function retrySync(deps: IngestionDeps, syncId: string): Promise<SyncRunRow> {
  const { pool, temporal, log, settings } = deps;
  let name = '';
  let row: SyncRunRow;
  let sourceId = '';
  await requireTemporal(deps);
  try {
    row = await withTransaction(pool, async (tx) => {
      const current = await getSync(tx, syncId, true);
      if (!current) throw new NotFoundError('sync', syncId);
      sourceId = current.source_id;
      if (!RETRYABLE.includes(current.status)) {
        throw new FailedPreconditionError(
          `sync ${syncId} is ${current.status}; only a failed or cancelled sync can be retried`,
          { status: current.status },
        );
      }
      const source = await getSource(tx, current.source_id, true);
      if (!source) throw new NotFoundError('source', current.source_id);
      if (!source.enabled) {
        throw new FailedPreconditionError(`source ${source.id} is disabled; enable it to sync`, {
          source_id: source.id,
        });
      }
      name = sourceName(source);
      const changed = await changeStatus(tx, { syncId, from: RETRYABLE, to: 'pending', reset: true });
      if (!changed) throw new Error(`sync ${syncId} changed status under its row lock`);
      return changed.row;
    });
  } catch (err) {
    if (isUniqueViolation(err, ONE_ACTIVE_INDEX)) throw await activeSyncConflict(deps, sourceId);
    throw err;
  }

  try {
    await signalRetry(temporal, {
      syncId,
      sourceId: row.source_id,
      sourceName: name,
      ref: row.ref ?? '',
      trigger: row.triggered_by ?? 'retry',
      taskQueue: settings.taskQueue,
    });
  } catch (err) {
    const message = `could not start the retry: ${err instanceof Error ? err.message : String(err)}`;
    await changeStatus(pool, { syncId, from: ['pending'], to: 'failed', error: message });
    log.warning('sync_retry_failed', { sync_id: syncId, error: err });
    throw temporalUnavailable(err, 'the sync is failed again');
  }
  log.info('sync_retried', { sync_id: syncId, source_id: row.source_id });
  return row;
}
