/**
 * The event writer. An event row and its NOTIFY go out in the caller's transaction, so a client never hears of a
 * change that was rolled back, and never misses one that committed. NOTIFY carries only the row id.
 */
import type { Queryable } from './db.ts';

export const EVENT_CHANNEL = 'service_sse';

export type EventType = 'sync_lifecycle' | 'sync_progress' | 'source_changed' | 'schedule_changed' | (string & {});

export interface EventInput {
  type: EventType;
  syncId?: string | null;
  sourceId?: string | null;
  payload: Record<string, unknown>;
}

export interface EventRow {
  id: string;
  type: string;
  sync_id: string | null;
  source_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

/** Inserts the event row and notifies `service_sse` with its id, in one statement on the caller's connection. */
export async function writeEvent(db: Queryable, event: EventInput): Promise<string> {
  const res = await db.query<{ id: string }>(
    `WITH e AS (
       INSERT INTO events (type, sync_id, source_id, payload) VALUES ($1, $2, $3, $4) RETURNING id
     )
     SELECT e.id::text AS id, pg_notify('${EVENT_CHANNEL}', e.id::text) FROM e`,
    [event.type, event.syncId ?? null, event.sourceId ?? null, JSON.stringify(event.payload)],
  );
  const row = res.rows[0];
  if (!row) throw new Error('event insert returned no row');
  return row.id;
}
