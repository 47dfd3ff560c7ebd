/** Reads of sync runs, their issues, and schedules (writes belong to the ingestion component). */
import type { Queryable } from '../../lib/db.ts';
import type { CursorKey } from '../../lib/validate.ts';
import { SCHEDULE_COLUMNS, type ScheduleRow } from '../../lib/resources.ts';
import { syncRunColumns, type SyncRunRow } from '../../lib/sync-runs/index.ts';

/** A row with its created_at at full (microsecond) precision, for keyset cursors. */
export type WithCursor<T> = T & { cursor_t: string };
const CURSOR_T = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t`;

const SYNC_COLUMNS = `${syncRunColumns()}, ${CURSOR_T}`;

export async function listSyncs(
  db: Queryable,
  f: { sourceId?: string | undefined; status?: string | undefined; limit: number; after?: CursorKey | undefined },
): Promise<WithCursor<SyncRunRow>[]> {
  const res = await db.query<WithCursor<SyncRunRow>>(
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

export async function getSync(db: Queryable, id: string): Promise<WithCursor<SyncRunRow> | undefined> {
  return (await db.query<WithCursor<SyncRunRow>>(`SELECT ${SYNC_COLUMNS} FROM sync_runs WHERE id = $1`, [id])).rows[0];
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

/** Schedules whose create is still being confirmed with Temporal (schedule_intents, V19) are not shown yet. */
export async function listSchedules(
  db: Queryable,
  f: { sourceId?: string | undefined; limit: number; after?: CursorKey | undefined },
): Promise<WithCursor<ScheduleRow>[]> {
  const res = await db.query<WithCursor<ScheduleRow>>(
    `SELECT ${SCHEDULE_COLUMNS}, ${CURSOR_T} FROM schedules
      WHERE ($1::uuid IS NULL OR source_id = $1)
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::bigint))
        AND NOT EXISTS (SELECT 1 FROM schedule_intents i WHERE i.schedule_id = schedules.id AND i.operation = 'create')
      ORDER BY schedules.created_at DESC, schedules.id DESC
      LIMIT $4`,
    [f.sourceId ?? null, f.after?.t ?? null, f.after?.id ?? null, f.limit],
  );
  return res.rows;
}
