/**
 * SQL of sync runs, one query per function with typed rows. Status changes go through `changeStatus`, which
 * writes the sync_lifecycle event in the caller's transaction, so a change and its event commit together.
 */
import type { Queryable } from '../../../lib/db.ts';
import { writeEvent } from '../../../lib/events.ts';
import { syncRunColumns, type SyncRunRow, type SyncStatus } from '../../../lib/resources.ts';

export const ACTIVE_STATUSES: readonly SyncStatus[] = ['pending', 'running'];
export const ONE_ACTIVE_INDEX = 'sync_runs_one_active_per_source';

const COLUMNS = syncRunColumns();

export async function getSync(db: Queryable, syncId: string, lock = false): Promise<SyncRunRow | undefined> {
  const r = await db.query<SyncRunRow>(`SELECT ${COLUMNS} FROM sync_runs WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`, [
    syncId,
  ]);
  return r.rows[0];
}

export async function getActiveSyncOf(db: Queryable, sourceId: string): Promise<SyncRunRow | undefined> {
  const r = await db.query<SyncRunRow>(
    `SELECT ${COLUMNS} FROM sync_runs WHERE source_id = $1 AND status IN ('pending', 'running')`,
    [sourceId],
  );
  return r.rows[0];
}

export interface NewRun {
  /** Given by the schedules' trigger workflow (so an activity retry inserts nothing twice); else generated. */
  id?: string;
  sourceId: string;
  configSnapshot: Record<string, unknown>;
  ref: string;
  triggeredBy: string;
  scheduleId: string | null;
}

/**
 * Inserts a pending run and its lifecycle event. Throws the unique violation of sync_runs_one_active_per_source
 * when the source already has an active run (callers map it to 409). With an id that already exists, returns
 * undefined (the insert was done before).
 */
export async function insertPendingRun(db: Queryable, run: NewRun): Promise<SyncRunRow | undefined> {
  const r = await db.query<SyncRunRow>(
    `INSERT INTO sync_runs (id, source_id, status, config_snapshot, ref, triggered_by, schedule_id)
     VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, 'pending', $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [run.id ?? null, run.sourceId, JSON.stringify(run.configSnapshot), run.ref, run.triggeredBy, run.scheduleId],
  );
  const row = r.rows[0];
  if (row) await writeLifecycleEvent(db, row, null);
  return row;
}

export interface StatusChange {
  syncId: string;
  from: readonly SyncStatus[];
  to: SyncStatus;
  /** Sets `error` (null clears it). */
  error?: string | null;
  /** Back to pending for a retry: progress, stats, error and times cleared. */
  reset?: boolean;
}

export interface ChangedRun {
  row: SyncRunRow;
  previous: SyncStatus;
}

/**
 * Moves a run from one of `from` to `to` and writes the lifecycle event; undefined when the run does not exist or
 * is in another status (nothing changed). Terminal statuses set completed_at. Throws the one-active-per-source
 * unique violation when `to` is active and the source has another active run.
 */
export async function changeStatus(db: Queryable, change: StatusChange): Promise<ChangedRun | undefined> {
  const terminal = !ACTIVE_STATUSES.includes(change.to) && change.to !== 'cleaned';
  const r = await db.query<SyncRunRow & { previous_status: SyncStatus }>(
    `WITH prev AS (SELECT id, status FROM sync_runs WHERE id = $1 AND status = ANY($2::text[]) FOR UPDATE)
     UPDATE sync_runs s SET
       status = $3,
       error = CASE WHEN $4::boolean THEN $5::text ELSE s.error END,
       completed_at = CASE WHEN $6::boolean THEN now() WHEN $7::boolean THEN NULL ELSE s.completed_at END,
       started_at = CASE WHEN $7::boolean THEN NULL ELSE s.started_at END,
       progress_done = CASE WHEN $7::boolean THEN 0 ELSE s.progress_done END,
       progress_total = CASE WHEN $7::boolean THEN 0 ELSE s.progress_total END,
       progress_meta = CASE WHEN $7::boolean THEN '{}'::jsonb ELSE s.progress_meta END,
       stats = CASE WHEN $7::boolean THEN '{}'::jsonb ELSE s.stats END
     FROM prev WHERE s.id = prev.id
     RETURNING ${syncRunColumns('s')},
       prev.status AS previous_status`,
    [
      change.syncId,
      change.from,
      change.to,
      change.error !== undefined || change.reset === true,
      change.reset ? null : (change.error ?? null),
      terminal,
      change.reset === true,
    ],
  );
  const raw = r.rows[0];
  if (!raw) return undefined;
  const { previous_status: previous, ...row } = raw;
  await writeLifecycleEvent(db, row, previous);
  return { row, previous };
}

export async function writeLifecycleEvent(
  db: Queryable,
  row: SyncRunRow,
  previous: SyncStatus | null,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await writeEvent(db, {
    type: 'sync_lifecycle',
    syncId: row.id,
    sourceId: row.source_id,
    payload: {
      sync_id: row.id,
      source_id: row.source_id,
      status: row.status,
      previous_status: previous,
      triggered_by: row.triggered_by,
      ...(row.error ? { error: row.error } : {}),
      ...extra,
    },
  });
}

/** Deletes the run; FK cascades remove its files, chunks and issues, a trigger its graph rows. */
export async function deleteSync(db: Queryable, syncId: string): Promise<SyncRunRow | undefined> {
  const r = await db.query<SyncRunRow>(`DELETE FROM sync_runs WHERE id = $1 RETURNING ${COLUMNS}`, [syncId]);
  return r.rows[0];
}

export async function deleteSyncGraph(db: Queryable, syncId: string): Promise<number> {
  const r = await db.query<{ n: string }>(`SELECT delete_sync_graph($1)::text AS n`, [syncId]);
  return Number(r.rows[0]?.n ?? 0);
}
