/**
 * SQL of schedule_intents (V19): the schedule command in flight on a schedule, one at a time. See commands.ts for
 * the two phases and repair.ts for intents whose command died or could not undo its Temporal change.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../../lib/db.ts';
import { requestDeadlineMs, type IngestionSettings } from '../deps.ts';
import { DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS } from '../temporal-gate.ts';

export type IntentOperation = 'create' | 'update' | 'delete';

export interface IntentRow {
  schedule_id: string;
  token: string;
  operation: IntentOperation;
  /** The intent's command is gone (abandoned, or older than the bound): the next one repairs it first. */
  stale: boolean;
}

/** The intent on `scheduleId` (call with the schedule row locked); stale when abandoned or older than `staleMs`. */
export async function getIntent(db: Queryable, scheduleId: string, staleMs: number): Promise<IntentRow | undefined> {
  const r = await db.query<IntentRow>(
    `SELECT schedule_id::text AS schedule_id, token, operation,
            (abandoned_at IS NOT NULL OR created_at < now() - make_interval(secs => $2::double precision / 1000))
              AS stale
       FROM schedule_intents WHERE schedule_id = $1`,
    [scheduleId, staleMs],
  );
  return r.rows[0];
}

/** Records a new intent (call with the schedule row locked and no intent on it); returns its token. */
export async function putIntent(db: Queryable, scheduleId: string, operation: IntentOperation): Promise<string> {
  const token = randomUUID();
  await db.query(`INSERT INTO schedule_intents (schedule_id, token, operation) VALUES ($1, $2, $3)`, [
    scheduleId,
    token,
    operation,
  ]);
  return token;
}

/** A repair takes a stale intent over (same operation, new token and age); returns the new token. */
export async function takeOverIntent(db: Queryable, scheduleId: string): Promise<string> {
  const token = randomUUID();
  await db.query(
    `UPDATE schedule_intents SET token = $2, created_at = now(), abandoned_at = NULL WHERE schedule_id = $1`,
    [scheduleId, token],
  );
  return token;
}

/** Undoes a create whose intent is still `token`'s: the row goes (and its intent with it). */
export async function dropCreated(db: Queryable, scheduleId: string, token: string): Promise<boolean> {
  const r = await db.query(
    `DELETE FROM schedules WHERE id = $1
        AND EXISTS (SELECT 1 FROM schedule_intents WHERE schedule_id = $1 AND token = $2)`,
    [scheduleId, token],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Deletes the intent when it is still `token`'s; false when another command took it over or the row is gone. */
export async function dropIntent(db: Queryable, scheduleId: string, token: string): Promise<boolean> {
  const r = await db.query(`DELETE FROM schedule_intents WHERE schedule_id = $1 AND token = $2`, [scheduleId, token]);
  return (r.rowCount ?? 0) > 0;
}

/** The command could not undo its Temporal change: the intent waits for a repair (next command, reconciler). */
export async function abandonIntent(db: Queryable, scheduleId: string, token: string): Promise<void> {
  await db.query(`UPDATE schedule_intents SET abandoned_at = now() WHERE schedule_id = $1 AND token = $2`, [
    scheduleId,
    token,
  ]);
}

/**
 * An intent older than this belongs to a command that is gone: every Temporal call of a command (its change and its
 * undo) ends by the request's deadline + the connect timeout, so a repair that starts later cannot be overtaken by
 * the command's own Temporal call. 30 s of margin on top.
 */
export function staleIntentMs(s: IngestionSettings): number {
  return requestDeadlineMs(s) + (s.temporalConnectTimeoutMs ?? DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS) + 30_000;
}

/** Schedules whose intent is stale: abandoned, or older than `staleMs`. */
export async function staleIntents(db: Queryable, staleMs: number): Promise<string[]> {
  const r = await db.query<{ schedule_id: string }>(
    `SELECT schedule_id::text AS schedule_id FROM schedule_intents
      WHERE abandoned_at IS NOT NULL OR created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY schedule_id`,
    [staleMs],
  );
  return r.rows.map((row) => row.schedule_id);
}
