/**
 * beginSync: the run goes pending → running (or → failed for a disabled source) with its lifecycle event, in one
 * transaction; returns the worker's step settings and, for activity summaries, the source's name and the ref.
 *
 * A failed or cancelled run is taken back to running when it ended outside this workflow execution: the `retry`
 * signal typed in the Temporal UI (pending, then running, as the API's retry does) or an operator's Reset to the
 * start. Idempotent: a retried beginSync whose first attempt committed finds the run running and goes on.
 */
import { withTransaction } from '../../lib/db.ts';
import type { BeginSyncResult, SyncIds } from '../../workflows/sync-types.ts';
import type { ActivityDeps } from './helpers/deps.ts';
import { heartbeating } from './helpers/heartbeat.ts';
import { changeStatus, loadRun, PHASES, REFUSED_PHASE, STARTING_PHASE } from '../../lib/sync-runs/index.ts';
import { endedElsewhere, executionRunId } from './helpers/run-claim.ts';
import { recordSyncEnded } from './helpers/metrics.ts';
import { symbolGraphEnabled } from '../reuse/reuse.ts';

export function createBeginSync({ pool, settings, log }: ActivityDeps) {
  async function beginSync(ids: SyncIds): Promise<BeginSyncResult> {
    return heartbeating(settings.heartbeatTimeoutMs, () => begin(ids));
  }

  async function begin({ syncId, sourceId }: SyncIds): Promise<BeginSyncResult> {
    const runId = executionRunId();
    const result = await withTransaction(pool, async (tx): Promise<BeginSyncResult> => {
      const run = await loadRun(tx, syncId, true);
      if (!run || run.source_id !== sourceId) return { proceed: false, status: 'skipped', error: 'sync run not found' };
      const proceed: BeginSyncResult = {
        proceed: true,
        embeddings: run.config_snapshot.embeddings !== false,
        symbolGraph: symbolGraphEnabled(run.config_snapshot),
        settings: {
          heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
          maxAttempts: settings.maxAttempts,
          attemptTimeoutMs: settings.attemptTimeoutMs,
          hostQueueTimeoutMs: settings.hostQueueTimeoutMs,
          precise: settings.precise ?? true,
        },
        source: `${run.source_owner}/${run.source_name}`,
        ref: run.ref || run.default_branch,
      };
      if (run.status === 'running') return proceed;
      if (endedElsewhere(run, runId)) {
        // As the API's retry: back to pending (error, progress and times cleared), then on as a pending run.
        await changeStatus(tx, { syncId, from: [run.status], to: 'pending', reset: true });
      } else if (run.status !== 'pending') {
        return { proceed: false, status: 'skipped', error: `sync run is ${run.status}`, runStatus: run.status };
      }
      if (!run.source_enabled) {
        const error = `source ${proceed.source} is disabled: it starts no sync`;
        await changeStatus(tx, {
          syncId,
          from: ['pending'],
          to: 'failed',
          error,
          meta: { phase: REFUSED_PHASE, workflow_run_id: runId },
        });
        return { proceed: false, status: 'failed', error, runStatus: 'failed' };
      }
      await changeStatus(tx, {
        syncId,
        from: ['pending'],
        to: 'running',
        start: true,
        meta: { phase: STARTING_PHASE, phases: PHASES, workflow_run_id: runId },
      });
      return proceed;
    });
    if (!result.proceed && result.status === 'failed') recordSyncEnded('failed');
    log.info('sync_begin', { sync_id: syncId, source_id: sourceId, proceed: result.proceed });
    return result;
  }
  return { beginSync };
}
