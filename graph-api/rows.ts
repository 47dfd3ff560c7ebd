/**
 * JSON representation of stored rows: timestamps as ISO strings, bigint ids as numbers, secrets never.
 */
import type { SourceRow } from './sources/queries.ts';
import type { IssueRow, ScheduleRow, SyncRow } from './syncs/queries.ts';

export type Json = Record<string, unknown>;

export function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

export function sourceJson(r: SourceRow): Json {
  return {
    id: r.id,
    source_type: r.source_type,
    owner: r.owner,
    name: r.name,
    url: r.url,
    default_branch: r.default_branch,
    config: r.config,
    enabled: r.enabled,
    last_sync_id: r.last_sync_id,
    last_synced_at: iso(r.last_synced_at),
    meta: r.meta,
    has_access_token: r.has_access_token,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function syncJson(r: SyncRow): Json {
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
    started_at: iso(r.started_at),
    completed_at: iso(r.completed_at),
    created_at: iso(r.created_at),
  };
}

export function issueJson(r: IssueRow): Json {
  return {
    id: Number(r.id),
    sync_id: r.sync_id,
    level: r.level,
    phase: r.phase,
    code: r.code,
    message: r.message,
    context: r.context,
    occurred_at: iso(r.occurred_at),
  };
}

export function scheduleJson(r: ScheduleRow): Json {
  return {
    id: Number(r.id),
    source_id: r.source_id,
    interval_minutes: r.interval_minutes,
    config_overrides: r.config_overrides,
    enabled: r.enabled,
    last_run_at: iso(r.last_run_at),
    next_run_at: iso(r.next_run_at),
    created_at: iso(r.created_at),
  };
}
