/**
 * The graph of reused files (issue 12), written inside the database from the rows this sync already points at: a
 * reused file's File vertex from its `sync_files` row and shared content (`file_contents`: name, type, domain), its
 * Symbol vertices from the content's symbol rows (`file_content_symbols`: name, kind, line, in the content's symbol
 * order) and one defines edge per symbol — the vertices and edges a full sync writes for the same file, with this
 * sync's ids (file_id, sync_id, source_id, symbol_id = `<file_id>:<name>:<line>`, new graph ids). The worker sends
 * file ids only; no symbol travels to the worker and back, nothing is parsed again, and the previous sync's graph
 * is not read (a vertex it could not write does not matter).
 *
 * Properties are built as agtype text with their keys in agtype's own order (by length, then bytes), which the
 * agtype parser takes without sorting: building them from the previous sync's vertices (agtype → jsonb → agtype)
 * cost 989 ms for CPython's 72,067 symbols, this ~0.6-0.8 s (docs/decisions.md, "Incremental syncs").
 *
 * Statements cover 500 files each (their File vertices, then their Symbol vertices and defines edges). There is no
 * per-row fallback: the rows come from rows written once already, so a failure is not a row's fault (the batch's
 * transaction fails and is retried).
 */
import type { Queryable } from '../../lib/db.ts';
import { WRITE_BATCH } from './batch.ts';
import { GRAPH_NAME, type GraphLabels } from './graph.ts';

export interface ReusedGraphResult {
  /** file_path → graph id of its new File vertex. */
  vertexByPath: Map<string, string>;
  symbolVertices: number;
  definesEdges: number;
}

/** `to_json(x)::text`: a JSON string literal (quotes and escapes), which agtype's parser reads as a string. */
const str = (x: string) => `to_json(${x})::text`;

const WRITE_FILES = `
  WITH f AS (
    SELECT s.id, s.file_path, s.content_id, c.name, c.type, c.domain,
           ag_catalog._graphid($3::int, nextval($4::regclass)) AS vertex
      FROM sync_files s JOIN file_contents c ON c.id = s.content_id
     WHERE s.id = ANY($5::uuid[]) AND s.sync_id = $1::uuid
  ), ins AS (
    INSERT INTO ${GRAPH_NAME}."File" (id, properties)
    SELECT vertex,
           ('{"name": ' || ${str('name')} || ', "type": ' || ${str('type')} || ', "domain": ' || ${str('domain')}
            || ', "file_id": "' || id || '", "sync_id": "' || $1::text || '", "file_path": ' || ${str('file_path')}
            || ', "source_id": "' || $2::text || '"}')::ag_catalog.agtype
      FROM f
  )
  SELECT vertex::text AS vertex, file_path, id::text AS file_id, content_id::text AS content_id FROM f`;

const WRITE_SYMBOLS = `
  WITH m AS (
    SELECT u.vertex::ag_catalog.graphid AS vertex, u.file_id, u.content_id::uuid AS content_id, u.n
      FROM unnest($5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS u(vertex, file_id, content_id, n)
  ), s AS (
    -- In file order, then the content's symbol order: the order a full sync writes them in.
    SELECT o.*, ag_catalog._graphid($3::int, nextval($4::regclass)) AS symbol_vertex
      FROM (SELECT m.vertex, m.file_id, k.name, k.kind, k.line, k.key, k.symbol_kind, k.end_line
              FROM m JOIN file_content_symbols k ON k.content_id = m.content_id
             ORDER BY m.n, k.ordinal) o
  ), ins AS (
    -- The symbol graph's key, symbol_kind and end_line (V28) where the content's symbols have them.
    INSERT INTO ${GRAPH_NAME}."Symbol" (id, properties)
    SELECT symbol_vertex,
           ('{' || coalesce('"key": ' || ${str('key')} || ', ', '') || '"kind": ' || ${str('kind')}
            || ', "line": ' || line || ', "name": ' || ${str('name')}
            || ', "file_id": "' || file_id || '", "sync_id": "' || $1::text || '"'
            || coalesce(', "end_line": ' || end_line, '') || ', "source_id": "' || $2::text
            || '", "symbol_id": ' || ${str("file_id || ':' || name || ':' || line")}
            || coalesce(', "symbol_kind": ' || ${str('symbol_kind')}, '') || '}')::ag_catalog.agtype
      FROM s
  )
  -- Every defines edge has the same properties: parsed once (an InitPlan), not once a row (~1.4 us each).
  INSERT INTO ${GRAPH_NAME}.defines (id, start_id, end_id, properties)
  SELECT ag_catalog._graphid($8::int, nextval($9::regclass)), vertex, symbol_vertex,
         (SELECT $10::text::ag_catalog.agtype)
    FROM s`;

/**
 * Writes the File and Symbol vertices and defines edges of reused files (`files`: path → this sync's file record
 * id, whose row points at the reused content).
 */
export async function writeReusedGraph(
  db: Queryable,
  ctx: { syncId: string; sourceId: string },
  files: ReadonlyMap<string, string>,
  labels: GraphLabels,
): Promise<ReusedGraphResult> {
  const ids = [...files.values()];
  const vertexByPath = new Map<string, string>();
  let definesEdges = 0;
  const defines = JSON.stringify({ sync_id: ctx.syncId, source_id: ctx.sourceId });
  for (let i = 0; i < ids.length; i += WRITE_BATCH) {
    const written = await db.query<{ vertex: string; file_path: string; file_id: string; content_id: string }>(
      WRITE_FILES,
      [ctx.syncId, ctx.sourceId, labels.File.id, labels.File.seq, ids.slice(i, i + WRITE_BATCH)],
    );
    if (written.rows.length === 0) continue;
    for (const r of written.rows) vertexByPath.set(r.file_path, r.vertex);
    const res = await db.query(WRITE_SYMBOLS, [
      ctx.syncId,
      ctx.sourceId,
      labels.Symbol.id,
      labels.Symbol.seq,
      written.rows.map((r) => r.vertex),
      written.rows.map((r) => r.file_id),
      written.rows.map((r) => r.content_id),
      labels.defines.id,
      labels.defines.seq,
      defines,
    ]);
    definesEdges += res.rowCount ?? 0;
  }
  return { vertexByPath, symbolVertices: definesEdges, definesEdges };
}
