/** Queries behind the node endpoints: which file record a node id names, its neighbours, its chunks. */
import { NotFoundError } from '../../lib/errors.ts';
import type { ReadTx } from '../db/read.ts';

type Db = ReadTx;

export interface FileRecordRow {
  id: string;
  sync_id: string;
  source_id: string;
  file_path: string;
  name: string;
  type: string;
  domain: string;
  language: string;
  size_bytes: number;
  line_count: number;
  imports_count: number;
  description: string | null;
  description_generated_at: Date | null;
  content_hash: string;
  exports: string[];
  status: string;
}

const FILE_COLUMNS = `f.id, f.sync_id, f.source_id, f.file_path, f.name, f.type, f.domain, f.language, f.size_bytes,
  f.line_count, f.imports_count, f.description, f.description_generated_at, f.content_hash, f.exports, f.status`;

/** The file record of a node in one sync ($1 source id, $2 path, $3 sync id). */
const FILE_IN_SYNC = `SELECT ${FILE_COLUMNS} FROM file_records f WHERE f.sync_id = $3 AND f.source_id = $1 AND f.file_path = $2`;
/**
 * The file record of a node in its source's newest completed sync that contains it ($1 source id, $2 path): the
 * source's completed syncs newest first, each probed for the path (its unique index) until one holds it, usually the
 * first: the ordered subquery is kept as it is (ORDER BY keeps it from being flattened) and the probe is a nested
 * loop (LATERAL ... LIMIT 1), so LIMIT 1 stops the loop at the first hit. Not the path's records in every kept sync
 * then sorted, which read one record per kept sync, scattered over the table (issue 30: file and node detail slowed
 * with history).
 */
const FILE_LATEST = `SELECT ${FILE_COLUMNS}
       FROM (SELECT s.id FROM sync_runs s
              WHERE s.source_id = $1 AND s.status = 'completed'
                AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = s.id)
              ORDER BY s.created_at DESC, s.id DESC) s
      CROSS JOIN LATERAL (SELECT * FROM file_records r WHERE r.sync_id = s.id AND r.file_path = $2 LIMIT 1) f
      LIMIT 1`;

function fileParams(sourceId: string, filePath: string, syncId: string | undefined): unknown[] {
  return syncId === undefined ? [sourceId, filePath] : [sourceId, filePath, syncId];
}

/**
 * The file record a node names. With a sync id: that sync's record (404 when the sync is unknown or lacks the file).
 * Without: the record in the source's newest completed sync that contains the file (404 when none does).
 */
export async function findFile(
  db: Db,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
): Promise<FileRecordRow | undefined> {
  const res = await db.query<FileRecordRow>(
    syncId === undefined ? FILE_LATEST : FILE_IN_SYNC,
    fileParams(sourceId, filePath, syncId),
  );
  return res.rows[0];
}

/** The 404 for a node whose file record was not found: it says whether the sync or the node is missing. */
export async function fileNotFound(db: Db, nodeId: string, syncId: string | undefined): Promise<never> {
  if (syncId !== undefined) {
    const sync = await db.query(`SELECT 1 FROM sync_runs WHERE id = $1`, [syncId]);
    if (sync.rowCount === 0) throw new NotFoundError('sync', syncId);
    throw new NotFoundError('node', `${nodeId} in sync ${syncId}`);
  }
  throw new NotFoundError('node', `${nodeId} (in any completed sync of its source)`);
}

/** Like findFile, but 404s (fileNotFound) when there is no such record. */
export async function requireFile(
  db: Db,
  nodeId: string,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
): Promise<FileRecordRow> {
  return (await findFile(db, sourceId, filePath, syncId)) ?? fileNotFound(db, nodeId, syncId);
}

export interface NeighborRow {
  rel_type: string;
  direction: 'in' | 'out';
  weight: number | null;
  label: string;
  file_id: string | null;
  source_id: string | null;
  file_path: string | null;
  name: string | null;
  type: string | null;
  symbol_id: string | null;
  kind: string | null;
  line: number | null;
  /** A Symbol's stable key (issue 28), when it has one. */
  key: string | null;
}

/**
 * Every edge touching the file's vertex, in both directions and of every label (the parent edge table covers labels
 * added later), with the vertex at the other end. Index scans throughout: the File vertex by its file_id expression
 * index, edges by start_id / end_id, the other vertex by id, the labels' names by oid.
 *
 * Written so that no estimate can grow with history (issue 30: node detail was 3.5x slower with 50 kept syncs): the
 * vertex is a parameter (`= (SELECT id FROM me)`), not a join with the CTE, whose unknown statistics made the planner
 * expect 1/200 of every edge table (a guess that grows with each kept sync); the vertex at the other end is one
 * probe per edge (LATERAL ... LIMIT 1: ids are unique; never a hash join over the vertex tables); the label names are
 * looked up per row, so the plan cannot start from pg_class for a presorted rel_type (a nested loop comparing
 * every catalog row with every edge: 0.3 s for the ~1,500 edges of a file every package imports).
 */
const NEIGHBOR_CTES = `e AS (
       SELECT e.tableoid AS rel, e.end_id AS other, e.properties, 'out' AS direction
         FROM service._ag_label_edge e WHERE e.start_id = (SELECT id FROM me)
       UNION ALL
       SELECT e.tableoid, e.start_id, e.properties, 'in'
         FROM service._ag_label_edge e WHERE e.end_id = (SELECT id FROM me)
     ), n AS (
     SELECT (SELECT rc.relname FROM pg_class rc WHERE rc.oid = e.rel) AS rel_type, e.direction,
            (e.properties ->> '"weight"'::ag_catalog.agtype)::float8 AS weight,
            (SELECT vc.relname FROM pg_class vc WHERE vc.oid = v.tableoid) AS label,
            v.properties ->> '"file_id"'::ag_catalog.agtype AS file_id,
            v.properties ->> '"source_id"'::ag_catalog.agtype AS source_id,
            v.properties ->> '"file_path"'::ag_catalog.agtype AS file_path,
            v.properties ->> '"name"'::ag_catalog.agtype AS name,
            v.properties ->> '"type"'::ag_catalog.agtype AS type,
            v.properties ->> '"symbol_id"'::ag_catalog.agtype AS symbol_id,
            v.properties ->> '"kind"'::ag_catalog.agtype AS kind,
            (v.properties ->> '"line"'::ag_catalog.agtype)::int AS line,
            v.properties ->> '"key"'::ag_catalog.agtype AS key
       FROM e
       CROSS JOIN LATERAL (SELECT v.tableoid, v.properties FROM service._ag_label_vertex v
                            WHERE v.id = e.other LIMIT 1) v
     )`;

const NEIGHBOR_ORDER = 'n.rel_type, n.direction DESC, n.name, n.file_path, n.line';

/**
 * The File vertex of the file records in `f` (id, sync_id, file_path): the vertex whose file_id is the record's id, or,
 * for a sync sharing another sync's graph (an unchanged re-sync, schema V50), the vertex of that sync's record of the
 * same path. None for a cleaned sync (its graph is gone for readers).
 */
const vertexOf = (f: string) => `SELECT v.id FROM ${f} JOIN sync_runs r ON r.id = f.sync_id
         LEFT JOIN sync_files o ON o.sync_id = r.graph_sync_id AND o.file_path = f.file_path
         JOIN service."File" v
           ON ag_catalog.agtype_access_operator(v.properties, '"file_id"'::ag_catalog.agtype)
              = ('"' || coalesce(o.id, f.id)::text || '"')::text::ag_catalog.agtype
        WHERE r.status <> 'cleaned'`;

export const neighborsSql = `WITH me AS (
       ${vertexOf('sync_files f')} AND f.id = $1::uuid
     ), ${NEIGHBOR_CTES}
     SELECT * FROM n ORDER BY ${NEIGHBOR_ORDER}`;

export async function neighbors(db: Db, fileId: string): Promise<NeighborRow[]> {
  const res = await db.query<NeighborRow>(neighborsSql, [fileId]);
  return res.rows;
}

export interface ChunkRow {
  chunk_index: number;
  content: string;
  start_line: number;
  end_line: number;
}

export async function chunksOf(db: Db, fileId: string): Promise<ChunkRow[]> {
  const res = await db.query<ChunkRow>(
    `SELECT chunk_index, content, start_line, end_line FROM content_chunks WHERE file_id = $1 ORDER BY chunk_index`,
    [fileId],
  );
  return res.rows;
}

/**
 * Node detail in one statement: the file record (as findFile) and its neighbours (as `neighbors`, as a JSON array in
 * the same order). Prepared once per connection. No row when the file record does not exist.
 */
function detailSql(fileSql: string): string {
  return `WITH f AS MATERIALIZED (${fileSql}),
     me AS (
       ${vertexOf('f')}
     ), ${NEIGHBOR_CTES}
     SELECT f.*, (SELECT coalesce(json_agg(n ORDER BY ${NEIGHBOR_ORDER}), '[]'::json)
                    FROM n) AS neighbors
       FROM f`;
}

const DETAIL_IN_SYNC = { name: 'ckg_node_detail_in_sync', text: detailSql(FILE_IN_SYNC) };
const DETAIL_LATEST = { name: 'ckg_node_detail_latest', text: detailSql(FILE_LATEST) };
/** The statements' text, for benchmarks' plans. */
export const nodeDetailSql = { inSync: DETAIL_IN_SYNC.text, latest: DETAIL_LATEST.text };

export async function findFileWithNeighbors(
  db: Db,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
): Promise<{ file: FileRecordRow; neighbors: NeighborRow[] } | undefined> {
  const res = await db.query<FileRecordRow & { neighbors: NeighborRow[] }>(
    syncId === undefined ? DETAIL_LATEST : DETAIL_IN_SYNC,
    fileParams(sourceId, filePath, syncId),
  );
  const row = res.rows[0];
  if (!row) return undefined;
  const { neighbors: rows, ...file } = row;
  return { file, neighbors: rows };
}

/** The file record and its chunks in chunk_index order, in one statement (no chunk: one row with null chunk fields). */
function fileTextSql(fileSql: string): string {
  return `WITH f AS MATERIALIZED (${fileSql})
     SELECT f.*, c.chunk_index, c.content, c.start_line, c.end_line
       FROM f LEFT JOIN content_chunks c ON c.file_id = f.id
      ORDER BY c.chunk_index`;
}

const TEXT_IN_SYNC = { name: 'ckg_node_text_in_sync', text: fileTextSql(FILE_IN_SYNC) };
const TEXT_LATEST = { name: 'ckg_node_text_latest', text: fileTextSql(FILE_LATEST) };
export const nodeTextSql = { inSync: TEXT_IN_SYNC.text, latest: TEXT_LATEST.text };

type FileChunkRow = FileRecordRow & { [K in keyof ChunkRow]: ChunkRow[K] | null };

export async function findFileWithChunks(
  db: Db,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
): Promise<{ file: FileRecordRow; chunks: ChunkRow[] } | undefined> {
  const res = await db.query<FileChunkRow>(
    syncId === undefined ? TEXT_LATEST : TEXT_IN_SYNC,
    fileParams(sourceId, filePath, syncId),
  );
  const first = res.rows[0];
  if (!first) return undefined;
  const { chunk_index: _i, content: _c, start_line: _s, end_line: _e, ...file } = first;
  const chunks: ChunkRow[] = [];
  for (const r of res.rows) {
    if (r.chunk_index === null || r.content === null || r.start_line === null || r.end_line === null) continue;
    chunks.push({ chunk_index: r.chunk_index, content: r.content, start_line: r.start_line, end_line: r.end_line });
  }
  return { file, chunks };
}
