/**
 * The sync run's statuses and its one row type, apart from the code that reads and writes rows (row.ts) so the
 * lifecycle event (lifecycle.ts), which row.ts writes, can name them without a cycle.
 */
export const SYNC_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'cleaned'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** A sync_runs row as selected by `syncRunColumns` (bigint schedule_id as text). */
export interface SyncRunRow {
  id: string;
  source_id: string;
  status: SyncStatus;
  config_snapshot: Record<string, unknown>;
  ref: string | null;
  progress_done: number;
  progress_total: number;
  progress_meta: Record<string, unknown>;
  stats: Record<string, unknown>;
  schedule_id: string | null;
  triggered_by: string | null;
  error: string | null;
  issues_recorded: number;
  issues_dropped: number;
  /** Kept by retention whatever its age (an operator pinned it: POST /api/syncs/{id}/pin). */
  pinned: boolean;
  pinned_at: Date | null;
  /** When the sync was cleaned (its graph removed); retention purges it RETENTION_PURGE_AFTER_SECONDS later. */
  cleaned_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
}
