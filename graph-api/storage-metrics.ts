/**
 * What history costs, on the graph component's /metrics (issue 30 item 4), read at scrape time and cached
 * STORAGE_METRICS_TTL_MS so a scraper every few seconds costs the database one small query set a minute:
 *
 *   ckg_database_size_bytes                      pg_database_size of the service's database
 *   ckg_graph_label_rows{label}                  rows per graph label (PostgreSQL's estimate, pg_class.reltuples:
 *                                                kept current by (auto)vacuum/analyze; an exact count of millions
 *                                                of rows per scrape would cost seconds)
 *   ckg_graph_label_bytes{label}                 heap + indexes + TOAST of each label
 *   ckg_table_rows{table}, ckg_table_bytes{table} the same for the per-sync and shared row tables
 *   ckg_syncs{source, status}                    sync runs per source (`owner/name`) and status: the kept window,
 *                                                cleaned ones waiting for purge, pinned counted in their status
 *   ckg_syncs_pinned{source}                     pinned syncs per source
 *
 * The source label is bounded by the number of sources (a few hundred in the deployments this serves).
 */
import type { Pool } from '../lib/db.ts';
import { gauge } from '../lib/metrics.ts';

export const STORAGE_METRICS_TTL_MS = 60_000;
const TABLES = ['sync_runs', 'sync_files', 'file_contents', 'file_content_chunks', 'file_content_symbols', 'events'];

let current: Pool | undefined;
let readAt = 0;
let reading: Promise<void> | undefined;

const dbSize = gauge('ckg_database_size_bytes', 'Size of the service database (pg_database_size)', [], () => refresh());
const labelRows = gauge('ckg_graph_label_rows', 'Rows per graph label (estimate: pg_class.reltuples)', ['label'], () =>
  refresh(),
);
const labelBytes = gauge('ckg_graph_label_bytes', 'Bytes per graph label (heap, indexes, TOAST)', ['label'], () =>
  refresh(),
);
const tableRows = gauge('ckg_table_rows', 'Rows of the sync tables (estimate: pg_class.reltuples)', ['table'], () =>
  refresh(),
);
const tableBytes = gauge('ckg_table_bytes', 'Bytes of the sync tables (heap, indexes, TOAST)', ['table'], () =>
  refresh(),
);
const syncs = gauge('ckg_syncs', 'Sync runs kept per source and status', ['source', 'status'], () => refresh());
const pinned = gauge('ckg_syncs_pinned', 'Pinned sync runs per source', ['source'], () => refresh());

async function read(pool: Pool): Promise<void> {
  const size = await pool.query<{ n: string }>(`SELECT pg_database_size(current_database())::text AS n`);
  const rels = await pool.query<{ kind: string; name: string; rows: string; bytes: string }>(
    `SELECT 'label' AS kind, l.name, greatest(c.reltuples, 0)::bigint::text AS rows,
            pg_total_relation_size(c.oid)::text AS bytes
       FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
       JOIN pg_class c ON c.oid = l.relation
      WHERE g.name = 'service' AND l.name NOT IN ('_ag_label_vertex', '_ag_label_edge')
     UNION ALL
     SELECT 'table', c.relname, greatest(c.reltuples, 0)::bigint::text, pg_total_relation_size(c.oid)::text
       FROM pg_class c WHERE c.oid = ANY (SELECT to_regclass(t) FROM unnest($1::text[]) t)`,
    [TABLES],
  );
  const runs = await pool.query<{ source: string; status: string; n: number; pinned: number }>(
    `SELECT s.owner || '/' || s.name AS source, r.status, count(*)::int AS n, count(*) FILTER (WHERE r.pinned)::int AS pinned
       FROM sync_runs r JOIN sources s ON s.id = r.source_id GROUP BY 1, 2`,
  );
  dbSize.set(Number(size.rows[0]?.n ?? 0));
  for (const g of [labelRows, labelBytes, tableRows, tableBytes, syncs, pinned]) g.reset();
  for (const r of rels.rows) {
    if (r.kind === 'label') {
      labelRows.set({ label: r.name }, Number(r.rows));
      labelBytes.set({ label: r.name }, Number(r.bytes));
    } else {
      tableRows.set({ table: r.name }, Number(r.rows));
      tableBytes.set({ table: r.name }, Number(r.bytes));
    }
  }
  const pins = new Map<string, number>();
  for (const r of runs.rows) {
    syncs.set({ source: r.source, status: r.status }, r.n);
    pins.set(r.source, (pins.get(r.source) ?? 0) + r.pinned);
  }
  for (const [source, n] of pins) pinned.set({ source }, n);
}

async function refresh(): Promise<void> {
  const pool = current;
  if (!pool || Date.now() - readAt < STORAGE_METRICS_TTL_MS) return;
  reading ??= read(pool)
    .then(() => {
      readAt = Date.now();
    })
    // A scrape must not fail because the database is slow or away: the last values stay.
    .catch(() => undefined)
    .finally(() => {
      reading = undefined;
    });
  await reading;
}

/** The pool the storage metrics read: the graph component's (the last one made, when a process holds several). */
export function collectStorageMetrics(pool: Pool): void {
  current = pool;
  readAt = 0;
}
