/**
 * Clean: a completed or failed run becomes `cleaned` and its graph vertices and edges are removed, in the same
 * transaction as the status change and its event. File records and chunks stay.
 */
import { withTransaction } from '../../../lib/db.ts';
import { FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import type { SyncRunRow, SyncStatus } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';
import { changeStatus, getSync } from '../../../lib/sync-runs/index.ts';
import { deleteSyncGraph } from './rows.ts';

const CLEANABLE: readonly SyncStatus[] = ['completed', 'failed'];

export async function cleanSync(deps: IngestionDeps, syncId: string): Promise<SyncRunRow> {
  const result = await withTransaction(deps.pool, async (tx) => {
    const current = await getSync(tx, syncId, true);
    if (!current) throw new NotFoundError('sync', syncId);
    if (!CLEANABLE.includes(current.status)) {
      throw new FailedPreconditionError(
        `sync ${syncId} is ${current.status}; only a completed or failed sync can be cleaned`,
        { status: current.status },
      );
    }
    const changed = await changeStatus(tx, { syncId, from: CLEANABLE, to: 'cleaned' });
    if (!changed) throw new Error(`sync ${syncId} changed status under its row lock`);
    const removed = await deleteSyncGraph(tx, syncId);
    return { row: changed.row, removed };
  });
  deps.log.info('sync_cleaned', {
    sync_id: syncId,
    source_id: result.row.source_id,
    graph_rows_removed: result.removed,
  });
  return result.row;
}
