/**
 * Start and retry options of the sync workflow for clients (the ingestion component's HTTP commands, tests,
 * benchmarks): the shared base of temporal/ingestion/start-options.ts (workflow id = source id, task queue, input,
 * search attributes, memo) plus the id policies a client start needs and a static summary for the Temporal UI.
 */
import { SYNC_WORKFLOW_TYPE, syncStartOptions as baseStartOptions } from './ingestion/start-options.ts';

export { SYNC_WORKFLOW_TYPE };
export const DEFAULT_SYNC_TASK_QUEUE = 'ckg-sync';

export interface SyncStartParams {
  syncId: string;
  sourceId: string;
  /** owner/name of the source, as shown in the UI. */
  sourceName: string;
  /** sync_runs.triggered_by (a user, or the schedule). */
  trigger: string;
  /** TEMPORAL_TASK_QUEUE (default ckg-sync). */
  taskQueue?: string;
}

/** Options for client.workflow.start(SYNC_WORKFLOW_TYPE, syncStartOptions(...)). */
export function syncStartOptions(p: SyncStartParams) {
  return {
    ...baseStartOptions({ ...p, taskQueue: p.taskQueue ?? DEFAULT_SYNC_TASK_QUEUE }),
    workflowIdConflictPolicy: 'FAIL' as const,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    staticSummary: `sync ${p.sourceName} (${p.syncId})`,
  };
}

/** Options for client.workflow.signalWithStart(SYNC_WORKFLOW_TYPE, syncRetryOptions(...)): retry of a run. */
export function syncRetryOptions(p: SyncStartParams) {
  const { workflowIdConflictPolicy: _ignored, ...start } = syncStartOptions(p);
  return { ...start, signal: 'retry' as const, signalArgs: [{ syncId: p.syncId }] as [{ syncId: string }] };
}
