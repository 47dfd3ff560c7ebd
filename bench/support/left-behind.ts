/**
 * What purges left behind (issue 30's "0 rows of purged syncs left in any table or label"): rows in any graph label or
 * any base table with a sync_id column that name a sync which no longer exists, and file contents no file record
 * references. bench/soak.ts and bench/history.ts print it after their purges; every figure must be 0.
 */
import type pg from 'pg';

// The sync id compared as text (an agtype string's text is its value): agtype = agtype in an anti-join is planned
// with a cast of agtype to boolean that AGE refuses.
export async function leftBehind(pool: pg.Pool): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const labels = await pool.query<{ name: string }>(
    `SELECT l.name FROM ag_catalog.ag_label l JOIN ag_catalog.ag_graph g ON g.graphid = l.graph
      WHERE g.name = 'service' AND l.name NOT IN ('_ag_label_vertex', '_ag_label_edge')`,
  );
  for (const { name } of labels.rows) {
    const r = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM service."${name}" x
        WHERE NOT EXISTS (SELECT 1 FROM sync_runs s
                           WHERE s.id::text
                               = ag_catalog.agtype_access_operator(x.properties, '"sync_id"'::ag_catalog.agtype)::text)`,
    );
    out[name] = Number(r.rows[0]!.n);
  }
  const tables = await pool.query<{ table_name: string }>(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND c.column_name = 'sync_id' AND t.table_type = 'BASE TABLE'
        AND c.table_name <> 'events'`,
  );
  for (const { table_name } of tables.rows) {
    const r = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${table_name}" x WHERE NOT EXISTS (SELECT 1 FROM sync_runs s WHERE s.id = x.sync_id)`,
    );
    out[table_name] = Number(r.rows[0]!.n);
  }
  const orphans = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM file_contents c WHERE NOT EXISTS (SELECT 1 FROM sync_files f WHERE f.content_id = c.id)`,
  );
  out.unreferenced_file_contents = Number(orphans.rows[0]!.n);
  return out;
}

/** The figures that are not 0 (an empty record: nothing left behind). */
export const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n !== 0));
