/**
 * The graph of reused files, copied inside the database from the previous sync's (issue 12): a reused file's File
 * vertex, its Symbol vertices and its defines edges are those the previous sync wrote for the same path and content,
 * with this sync's ids (file_id, sync_id, source_id, symbol_id = `<file_id>:<name>:<line>`, new graph ids). The
 * worker sends paths and ids only; no symbol travels to the worker and back, and nothing is parsed again.
 *
 * Statements cover 500 files each (the File vertices of 500 files, then their symbols and defines edges). A copy
 * has no per-row fallback: the rows were written once already, so a failure is not a row's fault (the batch's
 * transaction fails and is retried). Files whose vertex the previous sync does not have are returned in `missing`
 * (the caller writes their graph from the stored symbols, as a full sync would).
 */
import type { Queryable } from '../../lib/db.ts';
import { WRITE_BATCH } from './batch.ts';
import { GRAPH_NAME, type GraphLabels } from './graph.ts';

export interface GraphCopyResult {
  /** file_path → graph id of its new File vertex. */
  vertexByPath: Map<string, string>;
  symbolVertices: number;
  definesEdges: number;
  /** Paths without a File vertex in the previous sync. */
  missing: string[];
}

const COPY_FILES = `
  WITH nf AS (
    SELECT u.file_path, u.file_id FROM unnest($4::text[], $5::text[]) AS u(file_path, file_id)
  ), src AS (
    -- The previous sync's vertex of each path, by its file record's id (one probe of the File file_id index per
    -- file; matching on the file_path property of every vertex of the previous sync cost 188 vs 48 ms per 500
    -- files, agtype comparisons in a sort).
    SELECT ov.id AS old_id, nf.file_id, nf.file_path, ov.properties,
           ag_catalog._graphid($6::int, nextval($7::regclass)) AS new_id
      FROM nf JOIN sync_files p ON p.sync_id = $3::uuid AND p.file_path = nf.file_path
      CROSS JOIN LATERAL (
        SELECT v.id, v.properties FROM ${GRAPH_NAME}."File" v
         WHERE ag_catalog.agtype_access_operator(v.properties, '"file_id"'::ag_catalog.agtype)
               = ('"' || p.id::text || '"')::text::ag_catalog.agtype
        OFFSET 0
      ) ov
  ), ins AS (
    INSERT INTO ${GRAPH_NAME}."File" (id, properties)
    SELECT new_id, (ag_catalog.agtype_out(properties)::text::jsonb
                    || jsonb_build_object('file_id', file_id, 'sync_id', $1::text, 'source_id', $2::text)
                   )::text::ag_catalog.agtype
      FROM src
  )
  SELECT old_id::text AS old_id, new_id::text AS new_id, file_path, file_id FROM src`;

const COPY_SYMBOLS = `
  WITH m AS (
    SELECT u.old_id::ag_catalog.graphid AS old_id, u.new_id::ag_catalog.graphid AS new_id, u.file_id
      FROM unnest($3::text[], $4::text[], $5::text[]) AS u(old_id, new_id, file_id)
  ), os AS (
    SELECT m.new_id AS file_vertex, m.file_id, ag_catalog.agtype_out(s.properties)::text::jsonb AS p,
           ag_catalog._graphid($6::int, nextval($7::regclass)) AS symbol_vertex
      FROM m JOIN ${GRAPH_NAME}.defines e ON e.start_id = m.old_id
      -- One index probe per symbol, whatever the estimates: joined normally, the planner over-estimated the defines
      -- edges per file (62 vs 18) and hashed a scan of every kept sync's Symbol rows per statement (OFFSET 0 keeps
      -- the subquery from being flattened into that join). Measured: 190-214 ms with 2 parallel workers -> 41-52 ms.
      CROSS JOIN LATERAL (
        SELECT s.properties FROM ${GRAPH_NAME}."Symbol" s WHERE s.id = e.end_id OFFSET 0
      ) s
  ), ins AS (
    INSERT INTO ${GRAPH_NAME}."Symbol" (id, properties)
    SELECT symbol_vertex,
           (p || jsonb_build_object('symbol_id', file_id || ':' || (p ->> 'name') || ':' || (p ->> 'line'),
                                    'file_id', file_id, 'sync_id', $1::text, 'source_id', $2::text)
           )::text::ag_catalog.agtype
      FROM os
  )
  INSERT INTO ${GRAPH_NAME}.defines (id, start_id, end_id, properties)
  SELECT ag_catalog._graphid($8::int, nextval($9::regclass)), file_vertex, symbol_vertex, $10::text::ag_catalog.agtype
    FROM os`;

/**
 * Copies the graph of reused files (`files`: path → this sync's file id) from `previousSyncId`'s graph.
 */
export async function copyReusedGraph(
  db: Queryable,
  ctx: { syncId: string; sourceId: string; previousSyncId: string },
  files: ReadonlyMap<string, string>,
  labels: GraphLabels,
): Promise<GraphCopyResult> {
  const entries = [...files];
  const vertexByPath = new Map<string, string>();
  let definesEdges = 0;
  const defines = JSON.stringify({ sync_id: ctx.syncId, source_id: ctx.sourceId });
  for (let i = 0; i < entries.length; i += WRITE_BATCH) {
    const batch = entries.slice(i, i + WRITE_BATCH);
    const copied = await db.query<{ old_id: string; new_id: string; file_path: string; file_id: string }>(COPY_FILES, [
      ctx.syncId,
      ctx.sourceId,
      ctx.previousSyncId,
      batch.map(([p]) => p),
      batch.map(([, id]) => id),
      labels.File.id,
      labels.File.seq,
    ]);
    for (const r of copied.rows) vertexByPath.set(r.file_path, r.new_id);
    if (copied.rows.length === 0) continue;
    const res = await db.query(COPY_SYMBOLS, [
      ctx.syncId,
      ctx.sourceId,
      copied.rows.map((r) => r.old_id),
      copied.rows.map((r) => r.new_id),
      copied.rows.map((r) => r.file_id),
      labels.Symbol.id,
      labels.Symbol.seq,
      labels.defines.id,
      labels.defines.seq,
      defines,
    ]);
    definesEdges += res.rowCount ?? 0;
  }
  return {
    vertexByPath,
    symbolVertices: definesEdges,
    definesEdges,
    missing: entries.filter(([p]) => !vertexByPath.has(p)).map(([p]) => p),
  };
}
