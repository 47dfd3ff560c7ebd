/**
 * Clean: a completed or failed run becomes `cleaned` and its graph vertices and edges are removed, in the same
 * transaction as the status change and its event (lib/sync-runs/removal.ts, shared with retention). File records and
 * chunks stay. A pinned sync can be cleaned by an operator (a pin only holds retention off).
 */
import { withTransaction } from '../../../lib/db.ts';
import { FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import { CLEANABLE, cleanRun, getSync, type SyncRunRow } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';

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
    const cleaned = await cleanRun(tx, syncId);
    if (!cleaned) throw new Error(`sync ${syncId} changed status under its row lock`);
    return cleaned;
  });
  deps.log.info('sync_cleaned', {
    sync_id: syncId,
    source_id: result.row.source_id,
    graph_rows_removed: result.removed,
  });
  return result.row;
}
