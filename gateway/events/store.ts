/**
 * The only SQL the gateway knows: reads of the `events` table. The database builds each frame's data (the row as
 * JSON) itself, so a catch-up of many rows costs no JSON parsing in the gateway. Timestamps are ISO 8601 in UTC
 * (the pool's sessions run with TimeZone=UTC).
 */
import pg from 'pg';

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

export function createEventsPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: 'ckg-gateway-events',
    options: '-c TimeZone=UTC',
  });
  return pool;
}

/** The highest event id stored (0 when there is none). */
export async function headId(db: pg.Pool | pg.Client): Promise<number> {
  const r = await db.query<{ id: string | null }>('SELECT max(id)::text AS id FROM events');
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
