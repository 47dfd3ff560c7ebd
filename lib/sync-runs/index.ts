/**
 * The one owner of a sync run's state, below both the ingestion component and the activities: the row and its
 * statuses (row.ts), every status change (status.ts), the lifecycle event (lifecycle.ts), the phase names
 * (phases.ts) and a running run's progress (progress.ts). Nothing else writes `sync_runs.status`.
 */
export * from './lifecycle.ts';
export * from './phases.ts';
export * from './progress.ts';
export * from './row.ts';
export * from './status.ts';
export * from './removal.ts';
