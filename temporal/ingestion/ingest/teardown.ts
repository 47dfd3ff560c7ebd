/**
 * Source teardown, called by the graph component before it deletes a source (DELETE /ingest/sources/{id}): the
 * source's Temporal schedules are deleted (so no tick starts a new run), its running workflow is cancelled (and
 * terminated when it does not end in STOP_TIMEOUT_MS), and a run still marked active is marked cancelled. The rows
 * stay; the graph component deletes them. Idempotent: an unknown source or a second call does nothing more.
 */
import type { IngestionDeps } from '../deps.ts';
import { requireTemporal } from '../temporal-gate.ts';
import { legacyTemporalId, schedulesOfSource, temporalIdOfRow } from '../../../lib/schedules.ts';
import { deleteTemporalSchedule } from '../schedules/temporal.ts';
import { ACTIVE_STATUSES, changeStatus, getActiveSyncOf } from '../../../lib/sync-runs/index.ts';
import { stopSourceWorkflow, type StopOutcome } from '../syncs/workflow.ts';

export const TEARDOWN_REASON = 'source deleted';

export interface TeardownResult {
  schedulesDeleted: number;
  workflow: StopOutcome;
  cancelledSyncId: string | null;
}

export async function teardownSource(deps: IngestionDeps, sourceId: string): Promise<TeardownResult> {
  const { pool, temporal, settings, log } = deps;
  await requireTemporal(deps);
  const schedules = await schedulesOfSource(pool, sourceId);
  for (const s of schedules) {
    await deleteTemporalSchedule(temporal, temporalIdOfRow(settings.scheduleIdPrefix, s));
    // A schedule made before V49 that the watcher was renaming may exist under both ids for a moment.
    if (s.temporal_id) await deleteTemporalSchedule(temporal, legacyTemporalId(settings.scheduleIdPrefix, s.id));
  }
  const workflow = await stopSourceWorkflow(temporal, sourceId, TEARDOWN_REASON, settings.stopTimeoutMs);
  let cancelledSyncId: string | null = null;
  const active = await getActiveSyncOf(pool, sourceId);
  if (active) {
    const changed = await changeStatus(pool, {
      syncId: active.id,
      from: ACTIVE_STATUSES,
      to: 'cancelled',
      error: TEARDOWN_REASON,
    });
    cancelledSyncId = changed ? active.id : null;
  }
  log.info('source_torn_down', {
    source_id: sourceId,
    schedules_deleted: schedules.length,
    workflow,
    cancelled_sync_id: cancelledSyncId,
  });
  return { schedulesDeleted: schedules.length, workflow, cancelledSyncId };
}
