/**
 * Purge (lib/sync-runs/removal.ts, shared with retention): the run and everything of it are deleted (FK cascades
 * remove files, chunks and issues; a trigger removes its graph rows). An active run is cancelled first: the cancel signal, then termination when the workflow has not
 * ended within STOP_TIMEOUT_MS. A `sync_lifecycle` event with status `purged` reports the deletion; when the run was
 * its source's last sync, `source_changed` reports the source's new (null) last_sync_id.
 */
import { withTransaction } from '../../../lib/db.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import type { IngestionDeps } from '../deps.ts';
import { requireTemporal } from '../temporal-gate.ts';
import { ACTIVE_STATUSES, getSync, purgeRun } from '../../../lib/sync-runs/index.ts';
import { runningWorkflow, stopSourceWorkflow, type StopOutcome } from './workflow.ts';

export async function purgeSync(deps: IngestionDeps, syncId: string): Promise<void> {
  const { pool, temporal, log, settings } = deps;
  const row = await getSync(pool, syncId);
  if (!row) throw new NotFoundError('sync', syncId);

  let stopped: StopOutcome = 'not_running';
  if (ACTIVE_STATUSES.includes(row.status)) {
    await requireTemporal(deps);
    const running = await runningWorkflow(temporal, row.source_id);
    if (running && running.syncId === syncId) {
      stopped = await stopSourceWorkflow(temporal, row.source_id, 'sync purged', settings.stopTimeoutMs);
    }
  }

  const deleted = await withTransaction(pool, async (tx) => {
    const current = await getSync(tx, syncId, true);
    if (!current) return undefined;
    await purgeRun(tx, current);
    return current;
  });
  if (deleted)
    log.info('sync_purged', {
      sync_id: syncId,
      source_id: deleted.source_id,
      status: deleted.status,
      workflow: stopped,
    });
}
