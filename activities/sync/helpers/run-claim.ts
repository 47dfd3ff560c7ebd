/**
 * Every step checks that its run may go on before it writes: the run is `running`. A run that ended `failed` or
 * `cancelled` by another execution of the workflow (or by no workflow: the reconciler after a Terminate, the API
 * cancelling a run with no workflow) is taken back to `running` with its lifecycle event: this is what an operator's
 * Reset in the Temporal UI does (the reset execution continues the run and completes it). A run ended by this very
 * execution, a completed run or a deleted one stops the step (SyncNotRunning, not retried).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { withTransaction, type Pool, type PoolClient } from '../../../lib/db.ts';
import type { SyncIds } from '../../../workflows/sync-types.ts';
import {
  changeStatus,
  loadRun,
  recordWorkflowRun,
  RESUMED_PHASE,
  type RunWithSource,
} from '../../../lib/sync-runs/index.ts';

/** The Temporal run id of the workflow execution the calling activity belongs to. */
export function executionRunId(): string {
  return Context.current().info.workflowExecution?.runId ?? '';
}

export function notRunning(syncId: string, status: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`sync run ${syncId} is ${status}`, 'SyncNotRunning');
}

/** Takes a failed or cancelled run back to running for `runId` (inside the caller's transaction). */
export async function reviveRun(tx: PoolClient, run: RunWithSource, runId: string): Promise<void> {
  await changeStatus(tx, {
    syncId: run.id,
    from: [run.status],
    to: 'running',
    error: null,
    meta: { phase: RESUMED_PHASE, workflow_run_id: runId },
  });
}

/** A failed or cancelled run that ended outside execution `runId` (so that execution may take it back). */
export function endedElsewhere(run: RunWithSource, runId: string): boolean {
  return (run.status === 'failed' || run.status === 'cancelled') && run.progress_meta.workflow_run_id !== runId;
}

export async function claimRun(pool: Pool, { syncId, sourceId }: SyncIds): Promise<RunWithSource> {
  const runId = executionRunId();
  return withTransaction(pool, async (tx) => {
    const run = await loadRun(tx, syncId, true);
    if (!run || run.source_id !== sourceId) throw notRunning(syncId, 'gone');
    if (run.status === 'running') {
      if (run.progress_meta.workflow_run_id !== runId) {
        await recordWorkflowRun(tx, syncId, runId);
      }
      return run;
    }
    if (endedElsewhere(run, runId)) {
      await reviveRun(tx, run, runId);
      return { ...run, status: 'running' };
    }
    throw notRunning(syncId, run.status);
  });
}
