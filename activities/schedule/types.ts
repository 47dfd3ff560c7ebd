/** Inputs and results of the schedules' trigger workflow and its activities (ids only). */

export interface ScheduledSyncInput {
  scheduleId: number;
  sourceId: string;
}

export type SkipReason =
  'active_sync' | 'source_disabled' | 'source_deleted' | 'schedule_disabled' | 'schedule_deleted';

export type PrepareResult =
  | { outcome: 'created'; syncId: string; sourceName: string; ref: string; trigger: string }
  | { outcome: 'skipped'; reason: SkipReason; activeSyncId?: string };

export interface ScheduledSyncResult {
  outcome: 'started' | 'skipped' | 'failed';
  syncId?: string;
  reason?: string;
}
