/**
 * What one sync holds of its own (issue 30's "storage per unchanged re-sync"): its rows and their bytes (pg_column_size
 * of each row: heap data, without index entries or page overhead) in every base table with a sync_id column (events
 * included) and in every graph label (rows whose sync_id property names it). A sync that shares its predecessor's
 * graph (V50) has no graph rows of its own.
 */
import type pg from 'pg';

export interface SyncRows {
  table: string;
  rows: number;
  bytes: number;
}

export async function syncRows(pool: pg.Pool, syncId: string): Promise<SyncRows[]> {
  const out: SyncRows[] = [];
  const count = async (table: string, where: string) => {
    const r = await pool.query<{ n: string; b: string }>(
      `SELECT count(*) AS n, coalesce(sum(pg_column_size(x.*)), 0) AS b FROM ${table} x WHERE ${where}`,
      [syncId],
    );
    out.push({ table, rows: Number(r.rows[0]!.n), bytes: Number(r.rows[0]!.b) });
  };
  const tables = await pool.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND c.column_name = 'sync_id' AND t.table_type = 'BASE TABLE'
      ORDER BY 1`,
  );
  for (const { table_name } of tables.rows) await count(`"${table_name}"`, `x.sync_id = $1`);
  await count('sync_runs', 'x.id = $1');
  const labels = await pool.query<{ name: string }>(
    `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = 'service' AND l.name NOT IN ('_ag_label_vertex', '_ag_label_edge') ORDER BY 1`,
  );
  for (const { name } of labels.rows) {
    await count(
      `service."${name}"`,
      // AGE's operator named in full: the bench's pool does not put ag_catalog on the search path.
      `ag_catalog.agtype_access_operator(x.properties, '"sync_id"'::ag_catalog.agtype) OPERATOR(ag_catalog.=) ` +
        `('"' || $1::text || '"')::ag_catalog.agtype`,
    );
  }
  return out.filter((r) => r.rows > 0);
}
