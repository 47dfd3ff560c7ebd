/**
 * The only SQL the gateway knows: reads of the `events` table. The database builds each frame's data (the row as
 * JSON) itself, so a catch-up of many rows costs no JSON parsing in the gateway. Timestamps are ISO 8601 in UTC
 * (the pool's sessions run with TimeZone=UTC).
 */
import pg from 'pg';
import { SESSION_OPTIONS } from '../../lib/db.ts';

export interface EventRecord {
  id: number;
  type: string;
  /** The row as JSON: { id, type, sync_id, source_id, payload, created_at }. */
  data: string;
}

interface Row {
  id: string;
  type: string;
  data: string;
}

// Note: ORDER BY must name events.id; a bare `id` would sort by the text output column of the same name.
const COLUMNS = `id::text AS id, type,
  json_build_object('id', id, 'type', type, 'sync_id', sync_id, 'source_id', source_id,
                    'payload', payload, 'created_at', created_at)::text AS data`;

const toRecord = (r: Row): EventRecord => ({ id: Number(r.id), type: r.type, data: r.data });

/**
 * The gateway's own small pool. Its sessions read `events` by primary-key ranges only, for which walking the index
 * in order is always the right plan; but with missing or stale statistics (a fresh or fast-growing table: recent
 * ids lie beyond the histogram) the planner estimates few rows and picks a bitmap scan plus a sort of the whole
 * range, making every page of a 100k-row catch-up read the rest of the table. Bitmap scans and sorts are therefore
 * switched off for these sessions.
 */
export function createEventsPool(connectionString: string, max: number): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    application_name: 'ckg-gateway-events',
    options: `${SESSION_OPTIONS} -c TimeZone=UTC -c enable_bitmapscan=off -c enable_sort=off`,
  });
}

/** The highest event id stored (0 when there is none). */
export async function headId(db: pg.Pool | pg.Client): Promise<number> {
  const r = await db.query<{ id: string | null }>('SELECT max(id)::text AS id FROM events');
  return Number(r.rows[0]?.id ?? 0);
}

/** The pruning watermark: rows with id <= it may have been deleted by retention (0 when none ever was). */
export async function prunedThrough(db: pg.Pool): Promise<number> {
  const r = await db.query<{ id: string }>('SELECT pruned_through::text AS id FROM events_pruned');
  return Number(r.rows[0]?.id ?? 0);
}

/** Rows with after < id <= upTo (upTo omitted: no upper bound), in id order, at most `limit`. */
export async function rowsAfter(db: pg.Pool, after: number, limit: number, upTo?: number): Promise<EventRecord[]> {
  const r = await db.query<Row>(
    `SELECT ${COLUMNS} FROM events WHERE id > $1 AND ($2::bigint IS NULL OR id <= $2) ORDER BY events.id LIMIT $3`,
    [after, upTo ?? null, limit],
  );
  return r.rows.map(toRecord);
}

/** The rows among `ids` that exist now, in id order. */
export async function rowsById(db: pg.Pool, ids: number[]): Promise<EventRecord[]> {
  const r = await db.query<Row>(`SELECT ${COLUMNS} FROM events WHERE id = ANY($1::bigint[]) ORDER BY events.id`, [ids]);
  return r.rows.map(toRecord);
}
