/**
 * The sync run's row: its statuses, its one row type (`SyncRunRow`; with its source: `RunWithSource`), the selected
 * columns, and the reads and inserts of runs. Status changes of an existing run: status.ts.
 */
import type { Queryable } from '../db.ts';
import { writeLifecycleEvent } from './lifecycle.ts';
import type { SyncRunRow, SyncStatus } from './types.ts';

export { SYNC_STATUSES, type SyncRunRow, type SyncStatus } from './types.ts';

/** The selected columns of a run (a `SyncRunRow`), optionally qualified by a table alias. */
export function syncRunColumns(alias = ''): string {
  const q = alias ? `${alias}.` : '';
  return [
    'id',
    'source_id',
    'status',
    'config_snapshot',
    'ref',
    'progress_done',
    'progress_total',
    'progress_meta',
    'stats',
    `${q}schedule_id::text AS schedule_id`,
    'triggered_by',
    'error',
    'issues_recorded',
    'issues_dropped',
    'pinned',
    'pinned_at',
    'cleaned_at',
    'started_at',
    'completed_at',
    'created_at',
  ]
    .map((c) => (c.includes(' AS ') ? c : q + c))
    .join(', ');
}

/** The statuses of a run still in progress; at most one per source (ONE_ACTIVE_INDEX). */
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

/** A run with what the sync steps need of its source. */
export interface RunWithSource extends SyncRunRow {
  source_enabled: boolean;
  source_owner: string;
  source_name: string;
  source_url: string | null;
  default_branch: string;
}

/**
 * The run with its source, locked against other status changes when `lock` (call inside a transaction). The lock is
 * FOR NO KEY UPDATE, not FOR UPDATE: it serialises the steps' claims and status changes (UPDATEs and the ingestion
 * side's FOR UPDATE conflict with it) but not the foreign-key checks of rows referencing the run, which take FOR KEY
 * SHARE on it. With FOR UPDATE, a step's claim waited for every open transaction that had inserted a sync_files,
 * sync_steps or sync_issues row of the run: each parseBatch waited for the batch write in progress to commit (up to
 * seconds, with the parse threads idle; docs/decisions.md "Row writes of a full sync").
 */
export async function loadRun(db: Queryable, syncId: string, lock = false): Promise<RunWithSource | null> {
  const r = await db.query<RunWithSource>(
    `SELECT ${syncRunColumns('r')}, s.enabled AS source_enabled, s.owner AS source_owner, s.name AS source_name,
            s.url AS source_url, s.default_branch
       FROM sync_runs r JOIN sources s ON s.id = r.source_id
      WHERE r.id = $1 ${lock ? 'FOR NO KEY UPDATE OF r' : ''}`,
    [syncId],
  );
  return r.rows[0] ?? null;
}

export interface NewRun {
  /** Given by the schedules' trigger workflow (so an activity retry inserts nothing twice); else generated. */
  id?: string;
  sourceId: string;
  configSnapshot: Record<string, unknown>;
  ref: string | null;
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

/** Deletes the run; FK cascades remove its files, chunks and issues, a trigger its graph rows. */
export async function deleteSync(db: Queryable, syncId: string): Promise<SyncRunRow | undefined> {
  const r = await db.query<SyncRunRow>(`DELETE FROM sync_runs WHERE id = $1 RETURNING ${COLUMNS}`, [syncId]);
  return r.rows[0];
}
