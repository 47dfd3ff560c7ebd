/**
 * endSync: a pending or running run ends failed or cancelled with its error and lifecycle event, in one transaction.
 * Records which workflow execution ended it (a later Reset of the workflow may take the run back). Idempotent: a
 * run that already ended is left alone.
 */
import { withTransaction } from '../../lib/db.ts';
import type { EndSyncInput } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './deps.ts';
import { heartbeating } from './heartbeat.ts';
import { ACTIVE_STATUSES, changeStatus } from '../../lib/sync-runs/index.ts';
import { executionRunId } from './run-claim.ts';
import { recordSyncEnded } from './metrics.ts';

export function createEndSync({ pool, settings, log }: ActivityDeps) {
  async function endSync(input: EndSyncInput): Promise<{ changed: boolean }> {
    return heartbeating(settings.heartbeatTimeoutMs, () => end(input));
  }

  async function end(input: EndSyncInput): Promise<{ changed: boolean }> {
    const { syncId, sourceId, status, error } = input;
    const runId = executionRunId();
    const ended = await withTransaction(pool, (tx) =>
      changeStatus(tx, {
        syncId,
        from: ACTIVE_STATUSES,
        to: status,
        error,
        meta: { phase: status, workflow_run_id: runId },
      }),
    );
    const changed = ended !== undefined;
    if (changed) recordSyncEnded(status);
    log[status === 'failed' ? 'warning' : 'info'](`sync_${status}`, { sync_id: syncId, source_id: sourceId, error });
    return { changed };
  }
  return { endSync };
}
