/**
 * endSync: a pending or running run ends failed or cancelled with its error and lifecycle event, in one transaction.
 * Records which workflow execution ended it (a later Reset of the workflow may take the run back). Idempotent: a
 * run that already ended is left alone.
 */
import { withTransaction } from '../../lib/db.ts';
import type { EndSyncInput } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './deps.ts';
import { heartbeating } from './heartbeat.ts';
import { writeLifecycleEvent } from './lifecycle-event.ts';
import { executionRunId } from './run-claim.ts';
import { loadRun } from './runs.ts';
import { recordSyncEnded } from './metrics.ts';

export function createEndSync({ pool, settings, log }: ActivityDeps) {
  async function endSync(input: EndSyncInput): Promise<{ changed: boolean }> {
    return heartbeating(settings.heartbeatTimeoutMs, () => end(input));
  }

  async function end(input: EndSyncInput): Promise<{ changed: boolean }> {
    const { syncId, sourceId, status, error } = input;
    const runId = executionRunId();
    const changed = await withTransaction(pool, async (tx) => {
      const run = await loadRun(tx, syncId, true);
      if (!run || (run.status !== 'pending' && run.status !== 'running')) return false;
      await tx.query(
        `UPDATE sync_runs SET status = $2, error = $3, completed_at = now(),
                progress_meta = progress_meta || jsonb_build_object('phase', $2::text, 'workflow_run_id', $4::text)
          WHERE id = $1`,
        [syncId, status, error, runId],
      );
      await writeLifecycleEvent(tx, {
        syncId,
        sourceId,
        status,
        previousStatus: run.status,
        triggeredBy: run.triggered_by,
        error,
      });
      return true;
    });
    if (changed) recordSyncEnded(status);
    log[status === 'failed' ? 'warning' : 'info'](`sync_${status}`, { sync_id: syncId, source_id: sourceId, error });
    return { changed };
  }
  return { endSync };
}
