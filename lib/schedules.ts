/**
 * SQL of schedules, one query per function with typed rows, the schedule_changed event, and the trigger a scheduled
 * run records (shared by the ingestion component's commands and the schedules' trigger activities).
 */
import type { Queryable } from './db.ts';
import { writeEvent } from './events.ts';
import { SCHEDULE_COLUMNS, type ScheduleRow } from './resources.ts';

export const SCHEDULE_UNIQUE = 'schedules_source_interval_key';

export async function getSchedule(db: Queryable, id: string, lock = false): Promise<ScheduleRow | undefined> {
  const r = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`,
    [id],
  );
  return r.rows[0];
}

export async function findSchedule(
  db: Queryable,
  sourceId: string,
  intervalMinutes: number,
): Promise<ScheduleRow | undefined> {
  const r = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE source_id = $1 AND interval_minutes = $2`,
    [sourceId, intervalMinutes],
  );
  return r.rows[0];
}

export async function schedulesOfSource(db: Queryable, sourceId: string): Promise<ScheduleRow[]> {
  const r = await db.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM schedules WHERE source_id = $1 ORDER BY id`, [
    sourceId,
  ]);
  return r.rows;
}

export interface NewSchedule {
  sourceId: string;
  intervalMinutes: number;
  configOverrides: Record<string, unknown>;
  enabled: boolean;
}

/** Throws the unique violation of schedules_source_interval_key for a duplicate (source_id, interval_minutes). */
export async function insertSchedule(db: Queryable, s: NewSchedule): Promise<ScheduleRow> {
  const r = await db.query<ScheduleRow>(
    `INSERT INTO schedules (source_id, interval_minutes, config_overrides, enabled) VALUES ($1, $2, $3, $4)
     RETURNING ${SCHEDULE_COLUMNS}`,
    [s.sourceId, s.intervalMinutes, JSON.stringify(s.configOverrides), s.enabled],
  );
  const row = r.rows[0];
  if (!row) throw new Error('schedule insert returned no row');
  return row;
}

export interface ScheduleChanges {
  enabled?: boolean | undefined;
  intervalMinutes?: number | undefined;
  configOverrides?: Record<string, unknown> | undefined;
}

export async function updateSchedule(db: Queryable, id: string, c: ScheduleChanges): Promise<ScheduleRow> {
  const r = await db.query<ScheduleRow>(
    `UPDATE schedules SET
       enabled = COALESCE($2, enabled),
       interval_minutes = COALESCE($3, interval_minutes),
       config_overrides = COALESCE($4::jsonb, config_overrides)
     WHERE id = $1 RETURNING ${SCHEDULE_COLUMNS}`,
    [id, c.enabled ?? null, c.intervalMinutes ?? null, c.configOverrides ? JSON.stringify(c.configOverrides) : null],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`schedule ${id} vanished under its row lock`);
  return row;
}

export async function setNextRunAt(db: Queryable, id: string, next: Date | null): Promise<ScheduleRow | undefined> {
  const r = await db.query<ScheduleRow>(
    `UPDATE schedules SET next_run_at = $2 WHERE id = $1 RETURNING ${SCHEDULE_COLUMNS}`,
    [id, next],
  );
  return r.rows[0];
}

/** A scheduled run started: last_run_at = now, next_run_at as given. */
export async function markScheduleRun(db: Queryable, id: string, next: Date | null): Promise<void> {
  await db.query(`UPDATE schedules SET last_run_at = now(), next_run_at = $2 WHERE id = $1`, [id, next]);
}

export async function deleteScheduleRow(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM schedules WHERE id = $1`, [id]);
}

export async function writeScheduleEvent(
  db: Queryable,
  row: Pick<ScheduleRow, 'id' | 'source_id' | 'enabled'>,
  change: 'created' | 'updated' | 'deleted',
): Promise<void> {
  await writeEvent(db, {
    type: 'schedule_changed',
    sourceId: row.source_id,
    payload: { schedule_id: Number(row.id), source_id: row.source_id, change, enabled: row.enabled },
  });
}

/** The `triggered_by` of a run a schedule started (and the schedule's CkgTrigger search attribute). */
export function triggerOf(scheduleId: string | number): string {
  return `schedule:${scheduleId}`;
}
