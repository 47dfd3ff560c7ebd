/**
 * endSync: a pending or running run ends failed or cancelled with its error and lifecycle event, in one transaction.
 * Records which workflow execution ended it (a later Reset of the workflow may take the run back). Idempotent: a
 * run that already ended is left alone.
 */
import { withTransaction } from '../../lib/db.ts';
import type { EndSyncInput, EndSyncResult } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { heartbeating } from './helpers/heartbeat.ts';
import { ACTIVE_STATUSES, changeStatus, getSync } from '../../lib/sync-runs/index.ts';
import { executionRunId } from './helpers/run-claim.ts';
import { recordSyncEnded } from './helpers/metrics.ts';

export function createEndSync({ pool, settings, log }: ActivityDeps) {
  async function endSync(input: EndSyncInput): Promise<EndSyncResult> {
    return heartbeating(settings.heartbeatTimeoutMs, () => end(input));
  }

  async function end(input: EndSyncInput): Promise<EndSyncResult> {
    const { syncId, sourceId, status, error } = input;
    const runId = executionRunId();
    const result = await withTransaction(pool, async (tx): Promise<EndSyncResult> => {
      const ended = await changeStatus(tx, {
        syncId,
        from: ACTIVE_STATUSES,
        to: status,
        error,
        meta: { phase: status, workflow_run_id: runId },
      });
      if (ended) return { changed: true, status: ended.row.status };
      // Already ended (e.g. a Reset of a workflow whose run completed): the workflow reports the run as it is.
      const run = await getSync(tx, syncId);
      return run ? { changed: false, status: run.status } : { changed: false };
    });
    const changed = result.changed;
    if (changed) recordSyncEnded(status);
    log[status === 'failed' ? 'warning' : 'info'](`sync_${status}`, { sync_id: syncId, source_id: sourceId, error });
    return result;
  }
  return { endSync };
}
