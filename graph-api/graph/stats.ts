/**
 * Spec graph rule 7: platform-wide counts. Node counts come from file records (every sync's, as the graph holds a
 * File vertex per file per sync); total_edges counts every edge of the graph, of every label, each sync's: a graph
 * that syncs share (V50) counts once per sync sharing it, as if each held its copy.
 *
 * Counting ~10^5 edges takes tens of milliseconds, so the counts are cached while they cannot change: graph rows and
 * file records are only written by an active (pending/running) sync and only removed by cleaning (a status change)
 * or deleting runs. Each request reads a fingerprint of sync_runs (ids and statuses, ~1 ms); the cached counts are
 * used when it is unchanged and no sync is active, and recomputed otherwise.
 */
import type { Stats } from '../../lib/api/routes/graph.ts';
import type { ReadTx } from '../db/read.ts';
import { FILE_TYPES } from '../../lib/file-types.ts';

async function countAll(tx: ReadTx): Promise<Stats> {
  const byType = await tx.query<{ type: string; n: string }>(
    `SELECT type, count(*) AS n FROM file_records GROUP BY type`,
  );
  const edges = await tx.query<{ label: string; n: string }>(
    `SELECT c.relname AS label, x.n FROM (
       SELECT tableoid, count(*) AS n FROM service._ag_label_edge GROUP BY tableoid
     ) x JOIN pg_class c ON c.oid = x.tableoid`,
  );
  const nodesByType: Record<string, number> = Object.fromEntries(FILE_TYPES.map((t) => [t, 0]));
  let totalNodes = 0;
  for (const r of byType.rows) {
    nodesByType[r.type] = Number(r.n);
    totalNodes += Number(r.n);
  }
  // A sync sharing another sync's graph (an unchanged re-sync, schema V50) has those edges in its graph too, though
  // they are stored once: counted by what the sharing sync recorded (its stats equal its graph sync's). A cleaned
  // sync whose rows are kept for syncs sharing them has no graph of its own: its rows are not counted for it.
  const shared = await tx.query<{ label: string; n: string }>(
    `SELECT e.key AS label,
            sum(CASE WHEN r.status = 'cleaned' THEN -1 ELSE 1 END * e.value::bigint)::text AS n
       FROM sync_runs r CROSS JOIN LATERAL jsonb_each_text(r.stats -> 'edges') e
      WHERE jsonb_typeof(r.stats -> 'edges') = 'object'
        AND ((r.graph_sync_id IS NOT NULL AND r.status <> 'cleaned') OR (r.status = 'cleaned' AND graph_shared(r.id)))
      GROUP BY e.key`,
  );
  const edgesByLabel: Record<string, number> = { depends_on: 0, defines: 0 };
  let totalEdges = 0;
  for (const r of [...edges.rows, ...shared.rows]) {
    edgesByLabel[r.label] = (edgesByLabel[r.label] ?? 0) + Number(r.n);
    totalEdges += Number(r.n);
  }
  return { nodes_by_type: nodesByType, total_nodes: totalNodes, total_edges: totalEdges, edges_by_label: edgesByLabel };
}

export class StatsCache {
  private fingerprint: string | undefined;
  private value: Stats | undefined;

  async read(tx: ReadTx): Promise<Stats> {
    const fp = (
      await tx.query<{ active: number; fp: string }>(
        `SELECT count(*) FILTER (WHERE status IN ('pending', 'running'))::int AS active,
                count(*) || ':' || coalesce(md5(string_agg(id::text || status, ',' ORDER BY id)), '') AS fp
           FROM sync_runs`,
      )
    ).rows[0]!;
    if (fp.active === 0 && this.value && this.fingerprint === fp.fp) return this.value;
    const value = await countAll(tx);
    if (fp.active === 0) {
      this.fingerprint = fp.fp;
      this.value = value;
    } else {
      this.fingerprint = undefined;
      this.value = undefined;
    }
    return value;
  }
}
