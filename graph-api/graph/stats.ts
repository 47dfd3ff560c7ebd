/**
 * Spec graph rule 7: platform-wide counts. Node counts come from file records (every sync's, as the graph holds a
 * File vertex per file per sync); total_edges counts every edge of the graph, of every label.
 */
import type { ReadTx } from '../db/read.ts';
import { FILE_TYPES } from '../search/search.ts';

export async function graphStats(tx: ReadTx): Promise<Record<string, unknown>> {
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
  const edgesByLabel: Record<string, number> = { depends_on: 0, defines: 0 };
  let totalEdges = 0;
  for (const r of edges.rows) {
    edgesByLabel[r.label] = Number(r.n);
    totalEdges += Number(r.n);
  }
  return { nodes_by_type: nodesByType, total_nodes: totalNodes, total_edges: totalEdges, edges_by_label: edgesByLabel };
}
