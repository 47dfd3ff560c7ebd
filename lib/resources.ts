/**
 * The API representation of sync runs and schedules, one definition for both components that serve them: the graph
 * component reads them (GET /api/syncs, /api/schedules), the ingestion component returns them from its commands
 * (POST /api/syncs, cancel, retry, clean, POST/PATCH /api/schedules). The JSON built from a row (the run's row type
 * and columns: lib/sync-runs/row.ts; the schedule's here): timestamps as ISO strings, bigint ids (schedule ids) as JSON numbers.
 */
import type { Schedule, Sync } from './api/schemas.ts';
import type { SyncRunRow } from './sync-runs/row.ts';

/** The API representation of a sync run (lib/api/schemas.ts `Sync`): the stored columns, timestamps as ISO strings. */
export type SyncRunJson = Sync;

export function syncToJson(r: SyncRunRow): SyncRunJson {
  return {
    id: r.id,
    source_id: r.source_id,
    status: r.status,
    config_snapshot: r.config_snapshot,
    ref: r.ref,
    progress_done: r.progress_done,
    progress_total: r.progress_total,
    progress_meta: r.progress_meta,
    stats: r.stats,
    schedule_id: r.schedule_id === null ? null : Number(r.schedule_id),
    triggered_by: r.triggered_by,
    error: r.error,
    issues_recorded: r.issues_recorded,
    issues_dropped: r.issues_dropped,
    pinned: r.pinned,
    pinned_at: r.pinned_at?.toISOString() ?? null,
    cleaned_at: r.cleaned_at?.toISOString() ?? null,
    started_at: r.started_at?.toISOString() ?? null,
    completed_at: r.completed_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  };
}

/** A schedules row as selected by `SCHEDULE_COLUMNS` (bigint id as text). */
export interface ScheduleRow {
  id: string;
  source_id: string;
  interval_minutes: number;
  config_overrides: Record<string, unknown>;
  enabled: boolean;
  last_run_at: Date | null;
  next_run_at: Date | null;
  created_at: Date;
  /**
   * The Temporal schedule's id (`<prefix><owner>-<name>-<id>`, V49); null for a row made before it, whose schedule is
   * still `<prefix><id>` until the watcher renames it (temporal/ingestion/schedules/rename.ts).
   */
  temporal_id: string | null;
}

/** The API representation of a schedule (lib/api/schemas.ts `Schedule`). */
export type ScheduleJson = Schedule;

/** The selected columns of a schedule (a `ScheduleRow`), unqualified. */
export const SCHEDULE_COLUMNS = `id::text AS id, source_id, interval_minutes, config_overrides, enabled, last_run_at,
  next_run_at, created_at, temporal_id`;

export function scheduleToJson(r: ScheduleRow): ScheduleJson {
  return {
    id: Number(r.id),
    source_id: r.source_id,
    interval_minutes: r.interval_minutes,
    config_overrides: r.config_overrides,
    enabled: r.enabled,
    last_run_at: r.last_run_at?.toISOString() ?? null,
    next_run_at: r.next_run_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  };
}
