/**
 * How a sync workflow is started, shared by every starter (the ingestion component's POST /api/syncs, its retry by
 * signal-with-start, the scheduled trigger), so the workflow id, task queue, id policies, search attributes and memo
 * are the same everywhere. The workflow id is the source id: one active sync per source.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { CKG_SOURCE_ID, CKG_SOURCE_NAME, CKG_SYNC_ID, CKG_TRIGGER } from '../workflows/search-attributes.ts';
import type { SyncWorkflowInput } from '../workflows/sync-types.ts';

export const SYNC_WORKFLOW_TYPE = 'syncWorkflow';
export const DEFAULT_SYNC_TASK_QUEUE = 'ckg-sync';

export interface SyncStartParams {
  syncId: string;
  sourceId: string;
  /** owner/name of the source, as shown in the UI. */
  sourceName: string;
  /** sync_runs.triggered_by (a user, or `schedule:<id>`). */
  trigger: string;
  /** TEMPORAL_TASK_QUEUE (default ckg-sync). */
  taskQueue?: string;
}

export function syncSearchAttributes(p: SyncStartParams): SearchAttributePair[] {
  return [
    { key: CKG_SOURCE_ID, value: p.sourceId },
    { key: CKG_SOURCE_NAME, value: p.sourceName },
    { key: CKG_SYNC_ID, value: p.syncId },
    { key: CKG_TRIGGER, value: p.trigger },
  ];
}

/** Options for client.workflow.start(SYNC_WORKFLOW_TYPE, syncStartOptions(...)). */
export function syncStartOptions(p: SyncStartParams) {
  return {
    workflowId: p.sourceId,
    taskQueue: p.taskQueue ?? DEFAULT_SYNC_TASK_QUEUE,
    args: [{ syncId: p.syncId, sourceId: p.sourceId }] as [SyncWorkflowInput],
    workflowIdConflictPolicy: 'FAIL' as const,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    typedSearchAttributes: syncSearchAttributes(p),
    memo: { source_id: p.sourceId, source: p.sourceName, sync_id: p.syncId, trigger: p.trigger },
    staticSummary: `sync ${p.sourceName} (${p.syncId})`,
  };
}

/** Options for client.workflow.signalWithStart(SYNC_WORKFLOW_TYPE, syncRetryOptions(...)): retry of a run. */
export function syncRetryOptions(p: SyncStartParams) {
  const { workflowIdConflictPolicy: _ignored, ...start } = syncStartOptions(p);
  return { ...start, signal: 'retry' as const, signalArgs: [{ syncId: p.syncId }] as [{ syncId: string }] };
}
