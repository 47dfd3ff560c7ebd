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

/** Longest owner or name kept in a Temporal schedule id (the row id after it keeps the id unique). */
const ID_PART_MAX = 60;

function idPart(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, ID_PART_MAX);
}

/**
 * The Temporal schedule id of a schedule (issue 31: the Schedules page names the repository):
 * `<prefix><owner>-<name>-<row id>`, e.g. `sched-golang-encoding-json-5`. Unique because the row id ends it (a
 * number after the last `-`); stable because it is stored with the row (temporal_id) and never rebuilt.
 */
export function temporalScheduleIdOf(prefix: string, sourceName: string, id: string | number): string {
  const slash = sourceName.indexOf('/');
  const owner = slash >= 0 ? sourceName.slice(0, slash) : sourceName;
  const name = slash >= 0 ? sourceName.slice(slash + 1) : '';
  return `${prefix}${idPart(owner)}-${idPart(name)}-${id}`;
}

/** The Temporal schedule id of a row: the stored one, or the id rows had before V49 (`<prefix><id>`). */
export function temporalIdOfRow(prefix: string, row: Pick<ScheduleRow, 'id' | 'temporal_id'>): string {
  return row.temporal_id ?? legacyTemporalId(prefix, row.id);
}

/** The Temporal schedule id of rows made before V49. */
export function legacyTemporalId(prefix: string, id: string | number): string {
  return `${prefix}${id}`;
}

/**
 * Inserts the row with its Temporal schedule id (temporalScheduleIdOf with the new row id). Throws the unique
 * violation of schedules_source_interval_key for a duplicate (source_id, interval_minutes).
 */
export async function insertSchedule(
  db: Queryable,
  s: NewSchedule,
  temporal: { prefix: string; sourceName: string },
): Promise<ScheduleRow> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO schedules (source_id, interval_minutes, config_overrides, enabled) VALUES ($1, $2, $3, $4)
     RETURNING id::text AS id`,
    [s.sourceId, s.intervalMinutes, JSON.stringify(s.configOverrides), s.enabled],
  );
  const id = r.rows[0]?.id;
  if (!id) throw new Error('schedule insert returned no row');
  return setTemporalId(db, id, temporalScheduleIdOf(temporal.prefix, temporal.sourceName, id));
}

/** Records the row's Temporal schedule id (at insert, and when the watcher renames a schedule made before V49). */
export async function setTemporalId(db: Queryable, id: string, temporalId: string): Promise<ScheduleRow> {
  const r = await db.query<ScheduleRow>(
    `UPDATE schedules SET temporal_id = $2 WHERE id = $1 RETURNING ${SCHEDULE_COLUMNS}`,
    [id, temporalId],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`schedule ${id} vanished`);
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
