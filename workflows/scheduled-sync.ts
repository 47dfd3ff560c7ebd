/**
 * The action of every Temporal schedule (`sched-<owner>-<name>-<id>`). A schedule names each run `<its id>-<timestamp>`, but a
 * sync's workflow id must be its source id; so this small workflow creates the run's row (or records why the tick
 * is skipped: an active sync, a disabled source or schedule) and starts `syncWorkflow` as a child with workflow id
 * = source id and parent-close policy ABANDON: the sync outlives this trigger, which ends at once.
 */
import {
  ApplicationFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  patched,
  proxyActivities,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScheduleActivities } from '../activities/schedule/index.ts';
import type { ScheduledSyncInput, ScheduledSyncResult } from '../activities/schedule/types.ts';
import { SYNC_NOT_STARTED, SYNC_WORKFLOW_TYPE, syncWorkflowOptions } from './sync-contract.ts';

/**
 * A tick whose sync could not be started fails this workflow (its run is failed), so Temporal's own Failed filter
 * finds that failed sync too (issue 31); workflows started before completed with outcome `failed`.
 */
const TRIGGER_FAILS_PATCH = 'trigger-fails-when-sync-does-not-start';
const { prepareScheduledSync, failScheduledSync } = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

export async function scheduledSyncWorkflow(input: ScheduledSyncInput): Promise<ScheduledSyncResult> {
  // Made once and recorded in history: a retried activity inserts the same row, never a second one.
  const syncId = uuid4();
  const prepared = await prepareScheduledSync({ ...input, syncId });
  if (prepared.outcome === 'skipped') return { outcome: 'skipped', reason: prepared.reason };

  const options = syncWorkflowOptions({
    syncId: prepared.syncId,
    sourceId: input.sourceId,
    sourceName: prepared.sourceName,
    ref: prepared.ref,
    trigger: prepared.trigger,
    taskQueue: workflowInfo().taskQueue,
  });
  try {
    await startChild(SYNC_WORKFLOW_TYPE, {
      ...options,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    });
  } catch (err) {
    const error = `could not start the sync workflow: ${err instanceof Error ? err.message : String(err)}`;
    await failScheduledSync({ syncId: prepared.syncId, error });
    const result: ScheduledSyncResult = { outcome: 'failed', syncId: prepared.syncId, reason: error };
    if (patched(TRIGGER_FAILS_PATCH)) {
      throw ApplicationFailure.create({
        type: SYNC_NOT_STARTED,
        message: error,
        nonRetryable: true,
        details: [result],
      });
    }
    return result;
  }
  return { outcome: 'started', syncId: prepared.syncId };
}
