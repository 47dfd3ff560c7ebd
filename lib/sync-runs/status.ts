/**
 * Every status change of a sync run, for every writer (the ingestion component's commands and reconciler, the
 * sync and schedule activities): the run moves from one of the expected statuses to the new one, the columns that go
 * with the move are set by one rule, and its `sync_lifecycle` event is written in the caller's transaction.
 *
 * The rules: a terminal status (completed, failed, cancelled) sets completed_at, an active one (pending, running)
 * clears it; `completed` sets progress_done to progress_total; `reset` (back to pending for a retry) and `start`
 * (pending → running at the sync's beginning) clear error, progress, progress_meta and stats, `start` setting
 * started_at and `reset` clearing it; `cleaned` sets cleaned_at.
 */
import type { Queryable } from '../db.ts';
import { writeEvent } from '../events.ts';
import { writeLifecycleEvent } from './lifecycle.ts';
import { ACTIVE_STATUSES, syncRunColumns, type SyncRunRow, type SyncStatus } from './row.ts';

export interface StatusChange {
  syncId: string;
  from: readonly SyncStatus[];
  to: SyncStatus;
  /** Sets `error` (null clears it). */
  error?: string | null;
  /** Back to pending for a retry: progress, stats, error and times cleared. */
  reset?: boolean;
  /** The run begins (pending → running): started_at now; progress, stats and error cleared. */
  start?: boolean;
  /** Merged into progress_meta (after a reset or start cleared it): the phase, the workflow execution. */
  meta?: Record<string, unknown>;
  /** The completed run's stats, stored and carried by the lifecycle event. */
  stats?: Record<string, unknown>;
  /** Only when the run is not pinned (retention's clean: an operator's pin holds it off). */
  unpinnedOnly?: boolean;
}

export interface ChangedRun {
  row: SyncRunRow;
  previous: SyncStatus;
}

/**
 * Moves a run from one of `from` to `to` and writes the lifecycle event; undefined when the run does not exist or
 * is in another status (nothing changed). Throws the one-active-per-source unique violation when `to` is active and
 * the source has another active run. The row lock is FOR NO KEY UPDATE, as loadRun's (row.ts).
 */
export async function changeStatus(db: Queryable, change: StatusChange): Promise<ChangedRun | undefined> {
  const active = ACTIVE_STATUSES.includes(change.to);
  const terminal = !active && change.to !== 'cleaned';
  const clear = change.reset === true || change.start === true;
  const r = await db.query<SyncRunRow & { previous_status: SyncStatus }>(
    `WITH prev AS (
       SELECT id, status FROM sync_runs
        WHERE id = $1 AND status = ANY($2::text[]) AND (NOT $13::boolean OR NOT pinned)
        FOR NO KEY UPDATE
     )
     UPDATE sync_runs s SET
       status = $3,
       error = CASE WHEN $4::boolean THEN $5::text ELSE s.error END,
       completed_at = CASE WHEN $6::boolean THEN now() WHEN $7::boolean THEN NULL ELSE s.completed_at END,
       started_at = CASE WHEN $8::boolean THEN now() WHEN $9::boolean THEN NULL ELSE s.started_at END,
       progress_done = CASE WHEN $10::boolean THEN 0 WHEN $3 = 'completed' THEN s.progress_total
                            ELSE s.progress_done END,
       progress_total = CASE WHEN $10::boolean THEN 0 ELSE s.progress_total END,
       progress_meta = CASE WHEN $10::boolean THEN '{}'::jsonb ELSE s.progress_meta END || $11::jsonb,
       stats = CASE WHEN $12::jsonb IS NOT NULL THEN $12::jsonb WHEN $10::boolean THEN '{}'::jsonb ELSE s.stats END,
       cleaned_at = CASE WHEN $3 = 'cleaned' THEN now() ELSE s.cleaned_at END
     FROM prev WHERE s.id = prev.id
     RETURNING ${syncRunColumns('s')},
       prev.status AS previous_status`,
    [
      change.syncId,
      change.from,
      change.to,
      change.error !== undefined || clear,
      clear ? null : (change.error ?? null),
      terminal,
      active,
      change.start === true,
      change.reset === true,
      clear,
      JSON.stringify(change.meta ?? {}),
      change.stats ? JSON.stringify(change.stats) : null,
      change.unpinnedOnly === true,
    ],
  );
  const raw = r.rows[0];
  if (!raw) return undefined;
  const { previous_status: previous, ...row } = raw;
  await writeLifecycleEvent(db, row, previous, change.stats ? { stats: change.stats } : {});
  return { row, previous };
}

export interface QueuedMark {
  /** 1 = the next run the workflow takes. */
  position: number;
  /** The run in progress it waits for, if any. */
  behind: string | null;
}

/**
 * A failed, cancelled or pending run queued by a `retry` signal behind the run its source's workflow is processing:
 * progress_meta says so (`phase: queued`, `queue_position`, `queued_behind`, `queued_at`) until beginSync takes it,
 * and a `sync_queued` event reports it. The status stays (a source has one active run at a time); the workflow
 * execution that ended the run is forgotten, so its own workflow may take it back. False when the run is not in one
 * of those statuses.
 */
export async function markQueued(db: Queryable, syncId: string, mark: QueuedMark): Promise<boolean> {
  const r = await db.query<{ source_id: string; status: SyncStatus }>(
    `UPDATE sync_runs SET progress_meta = (progress_meta - 'workflow_run_id')
              || jsonb_build_object('phase', 'queued', 'queue_position', $2::int, 'queued_behind', $3::text,
                                    'queued_at', now())
      WHERE id = $1 AND status IN ('failed', 'cancelled', 'pending')
      RETURNING source_id, status`,
    [syncId, mark.position, mark.behind],
  );
  const row = r.rows[0];
  if (!row) return false;
  await writeEvent(db, {
    type: 'sync_queued',
    syncId,
    sourceId: row.source_id,
    payload: {
      sync_id: syncId,
      source_id: row.source_id,
      status: row.status,
      queue_position: mark.position,
      queued_behind: mark.behind,
    },
  });
  return true;
}

/** Clears the queued marks of a source's runs that are not active (their workflow ended without taking them). */
export async function clearQueued(db: Queryable, sourceId: string): Promise<number> {
  const r = await db.query(
    `UPDATE sync_runs SET progress_meta = progress_meta - 'queue_position' - 'queued_behind' - 'queued_at'
              || jsonb_build_object('phase', status)
      WHERE source_id = $1 AND progress_meta ->> 'phase' = 'queued' AND status IN ('failed', 'cancelled')`,
    [sourceId],
  );
  return r.rowCount ?? 0;
}
