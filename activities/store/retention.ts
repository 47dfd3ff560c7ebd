/** The reads and deletes of retention (activities/retention/): which syncs are past their window, events pruned. */
import type { Queryable } from '../../lib/db.ts';
import type { RetentionInput } from '../../lib/retention.ts';

/**
 * The syncs beyond their source's window, oldest first: each source keeps its newest keep_completed completed syncs
 * and newest keep_failed failed or cancelled ones (per-source `config.retention`, else the service-wide counts);
 * pinned syncs are kept besides. A pull request's syncs (docs/webhooks.md) have a window of their own per request,
 * so reviews never push the branch's syncs out (they are cleaned when the request closes). `due`: over longer than
 * purgeAfterSeconds ago.
 */
export async function syncsBeyondWindow(
  db: Queryable,
  input: Pick<RetentionInput, 'keepCompleted' | 'keepFailed' | 'purgeAfterSeconds'>,
): Promise<Array<{ id: string; status: string; due: boolean }>> {
  const r = await db.query<{ id: string; status: string; due: boolean }>(
    `WITH policy AS (
       SELECT s.id AS source_id,
              CASE WHEN jsonb_typeof(s.config->'retention'->'keep_completed') = 'number'
                   THEN greatest(1, (s.config->'retention'->>'keep_completed')::numeric::int) ELSE $1 END AS keep_completed,
              CASE WHEN jsonb_typeof(s.config->'retention'->'keep_failed') = 'number'
                   THEN greatest(0, (s.config->'retention'->>'keep_failed')::numeric::int) ELSE $2 END AS keep_failed
         FROM sources s
     ), ranked AS (
       SELECT r.id, r.status, r.pinned, r.completed_at, r.created_at, p.keep_completed, p.keep_failed,
              row_number() OVER (PARTITION BY r.source_id, r.status = 'completed', pr.pr_number
                                 ORDER BY r.created_at DESC, r.id DESC) AS rank
         FROM sync_runs r JOIN policy p ON p.source_id = r.source_id
         LEFT JOIN pull_request_syncs pr ON pr.sync_id = r.id
        WHERE r.status IN ('completed', 'failed', 'cancelled')
     )
     SELECT id, status, coalesce(completed_at, created_at) < now() - make_interval(secs => $3) AS due
       FROM ranked
      WHERE NOT pinned
        AND rank > CASE WHEN status = 'completed' THEN keep_completed ELSE keep_failed END
      ORDER BY created_at, id`,
    [input.keepCompleted, input.keepFailed, input.purgeAfterSeconds],
  );
  return r.rows;
}

/** Unpinned syncs cleaned longer than `purgeAfterSeconds` ago, newest first (a sharer before the sync it shares). */
export async function cleanedSyncsDue(db: Queryable, purgeAfterSeconds: number): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT id FROM sync_runs
      WHERE status = 'cleaned' AND NOT pinned AND cleaned_at < now() - make_interval(secs => $1)
      ORDER BY created_at DESC, id DESC`,
    [purgeAfterSeconds],
  );
  return r.rows.map((x) => x.id);
}

/** The newest event id older than `hours`, or null. */
export async function eventsOlderThan(db: Queryable, hours: number): Promise<number | null> {
  const r = await db.query<{ id: string | null }>(
    `SELECT max(id)::text AS id FROM events WHERE created_at < now() - make_interval(hours => $1)`,
    [hours],
  );
  return r.rows[0]?.id ? Number(r.rows[0].id) : null;
}

/**
 * Deletes up to `batch` events with ids up to `through`, the watermark the event stream reads raised first (in the
 * caller's transaction: a client never resumes below a deleted row unwarned). Returns how many were deleted.
 */
export async function pruneEventsThrough(db: Queryable, through: number, batch: number): Promise<number> {
  await db.query(
    `INSERT INTO events_pruned (only_row, pruned_through, pruned_at) VALUES (true, $1, now())
     ON CONFLICT (only_row) DO UPDATE
       SET pruned_through = greatest(events_pruned.pruned_through, excluded.pruned_through), pruned_at = now()`,
    [through],
  );
  const d = await db.query(
    `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE id <= $1 ORDER BY id LIMIT $2)`,
    [through, batch],
  );
  return d.rowCount ?? 0;
}

/** The graph's label tables (quoted, schema-qualified), vertex and edge parents left out. */
export async function graphLabelTables(db: Queryable): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = 'service' AND l.name NOT IN ('_ag_label_vertex', '_ag_label_edge')`,
  );
  return r.rows.map((x) => `service."${x.name.replaceAll('"', '""')}"`);
}

/** VACUUM (ANALYZE) of one table: a statement on its own, outside any transaction block (VACUUM cannot run in one). */
export async function vacuumAnalyze(db: Queryable, table: string): Promise<void> {
  await db.query(`VACUUM (ANALYZE) ${table}`);
}
