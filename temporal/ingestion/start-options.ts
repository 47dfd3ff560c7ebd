/**
 * How a sync workflow is started, in one place for the HTTP component and the schedules' trigger workflow: workflow
 * id = source id, the sync task queue, the input, and the search attributes + memo an operator filters on in the
 * Temporal UI. Pure (only @temporalio/common), so workflow code may import it.
 *
 * The pipeline branch defines the same keys in workflows/search-attributes.ts and a `syncStartOptions` of its own;
 * when both land, one of the two definitions goes (reconcile on merge).
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const CKG_SOURCE_ID = defineSearchAttributeKey('CkgSourceId', SearchAttributeType.KEYWORD);
export const CKG_SOURCE_NAME = defineSearchAttributeKey('CkgSourceName', SearchAttributeType.KEYWORD);
export const CKG_SYNC_ID = defineSearchAttributeKey('CkgSyncId', SearchAttributeType.KEYWORD);
export const CKG_TRIGGER = defineSearchAttributeKey('CkgTrigger', SearchAttributeType.KEYWORD);

export const SYNC_WORKFLOW_TYPE = 'syncWorkflow';
export const SCHEDULED_SYNC_WORKFLOW_TYPE = 'scheduledSyncWorkflow';

export interface SyncWorkflowArgs {
  syncId: string;
  sourceId: string;
}

export interface SyncStartInput {
  syncId: string;
  sourceId: string;
  /** `owner/name` of the source. */
  sourceName: string;
  /** The run's triggered_by. */
  trigger: string;
  taskQueue: string;
}

export interface SyncStartOptions {
  workflowId: string;
  taskQueue: string;
  args: [SyncWorkflowArgs];
  typedSearchAttributes: SearchAttributePair[];
  memo: Record<string, string>;
}

export function syncStartOptions(input: SyncStartInput): SyncStartOptions {
  return {
    workflowId: input.sourceId,
    taskQueue: input.taskQueue,
    args: [{ syncId: input.syncId, sourceId: input.sourceId }],
    typedSearchAttributes: [
      { key: CKG_SOURCE_ID, value: input.sourceId },
      { key: CKG_SOURCE_NAME, value: input.sourceName },
      { key: CKG_SYNC_ID, value: input.syncId },
      { key: CKG_TRIGGER, value: input.trigger.slice(0, 200) },
    ],
    memo: {
      source_id: input.sourceId,
      source: input.sourceName,
      sync_id: input.syncId,
      triggered_by: input.trigger,
    },
  };
}
