/** SQL of the ingestion component's sync commands beyond the run's own row (lib/sync-runs owns that). */
import type { Queryable } from '../../../lib/db.ts';

export async function deleteSyncGraph(db: Queryable, syncId: string): Promise<number> {
  const r = await db.query<{ n: string }>(`SELECT delete_sync_graph($1)::text AS n`, [syncId]);
  return Number(r.rows[0]?.n ?? 0);
}
