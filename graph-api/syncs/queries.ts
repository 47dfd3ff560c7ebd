/** Reads of sync runs, their issues, and schedules (writes belong to the ingestion component). */
import type { Queryable } from '../../lib/db.ts';
import type { CursorKey } from '../../lib/http.ts';

export const SYNC_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'cleaned'] as const;
export const ISSUE_LEVELS = ['info', 'warning', 'error'] as const;

export interface SyncRow {
  id: string;
  source_id: string;
  status: string;
  config_snapshot: unknown;
  ref: string | null;
  progress_done: number;
  progress_total: number;
  progress_meta: unknown;
  stats: unknown;
  schedule_id: string | null;
  triggered_by: string | null;
  error: string | null;
  issues_recorded: number;
  issues_dropped: number;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  /** created_at at full (microsecond) precision, for keyset cursors. */
  cursor_t: string;
}

const SYNC_COLUMNS = `id, source_id, status, config_snapshot, ref, progress_done, progress_total, progress_meta, stats,
  schedule_id, triggered_by, error, issues_recorded, issues_dropped, started_at, completed_at, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t`;

export async function listSyncs(
  db: Queryable,
  f: { sourceId?: string | undefined; status?: string | undefined; limit: number; after?: CursorKey | undefined },
): Promise<SyncRow[]> {
  const res = await db.query<SyncRow>(
    `SELECT ${SYNC_COLUMNS} FROM sync_runs
      WHERE ($1::uuid IS NULL OR source_id = $1)
        AND ($2::text IS NULL OR status = $2)
        AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY created_at DESC, id DESC
      LIMIT $5`,
    [f.sourceId ?? null, f.status ?? null, f.after?.t ?? null, f.after?.id ?? null, f.limit],
  );
  return res.rows;
}

export async function getSync(db: Queryable, id: string): Promise<SyncRow | undefined> {
  return (await db.query<SyncRow>(`SELECT ${SYNC_COLUMNS} FROM sync_runs WHERE id = $1`, [id])).rows[0];
}

export interface IssueRow {
  id: string;
  sync_id: string;
  level: string;
  phase: string;
  code: string;
  message: string;
  context: unknown;
  occurred_at: Date;
}

/** Issues of one sync, oldest first; `afterId` is the keyset. */
export async function listIssues(
  db: Queryable,
  f: {
    syncId: string;
    level?: string | undefined;
    phase?: string | undefined;
    limit: number;
    afterId?: string | undefined;
  },
): Promise<IssueRow[]> {
  const res = await db.query<IssueRow>(
    `SELECT id::text AS id, sync_id, level, phase, code, message, context, occurred_at FROM sync_issues
      WHERE sync_id = $1
        AND ($2::text IS NULL OR level = $2)
        AND ($3::text IS NULL OR phase = $3)
        AND ($4::bigint IS NULL OR id > $4::bigint)
      ORDER BY sync_issues.id
      LIMIT $5`,
    [f.syncId, f.level ?? null, f.phase ?? null, f.afterId ?? null, f.limit],
  );
  return res.rows;
}

export interface ScheduleRow {
  id: string;
  source_id: string;
  interval_minutes: number;
  config_overrides: unknown;
  enabled: boolean;
  last_run_at: Date | null;
  next_run_at: Date | null;
  created_at: Date;
  cursor_t: string;
}

export async function listSchedules(
  db: Queryable,
  f: { sourceId?: string | undefined; limit: number; after?: CursorKey | undefined },
): Promise<ScheduleRow[]> {
  const res = await db.query<ScheduleRow>(
    `SELECT id::text AS id, source_id, interval_minutes, config_overrides, enabled, last_run_at, next_run_at, created_at,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t
       FROM schedules
      WHERE ($1::uuid IS NULL OR source_id = $1)
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::bigint))
      ORDER BY schedules.created_at DESC, schedules.id DESC
      LIMIT $4`,
    [f.sourceId ?? null, f.after?.t ?? null, f.after?.id ?? null, f.limit],
  );
  return res.rows;
}
