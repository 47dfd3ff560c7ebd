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
  if (syncId !== undefined) {
    const res = await db.query<FileRecordRow>(
      `SELECT ${FILE_COLUMNS} FROM file_records f WHERE f.sync_id = $1 AND f.source_id = $2 AND f.file_path = $3`,
      [syncId, sourceId, filePath],
    );
    return res.rows[0];
  }
  const res = await db.query<FileRecordRow>(
    `SELECT ${FILE_COLUMNS} FROM file_records f JOIN sync_runs s ON s.id = f.sync_id
      WHERE f.source_id = $1 AND f.file_path = $2 AND s.status = 'completed'
      ORDER BY s.created_at DESC, s.id DESC
      LIMIT 1`,
    [sourceId, filePath],
  );
  return res.rows[0];
}

/** Like findFile, but 404s with a message that says whether the sync or the node is missing. */
export async function requireFile(
  db: Db,
  nodeId: string,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
): Promise<FileRecordRow> {
  const row = await findFile(db, sourceId, filePath, syncId);
  if (row) return row;
  if (syncId !== undefined) {
    const sync = await db.query(`SELECT 1 FROM sync_runs WHERE id = $1`, [syncId]);
    if (sync.rowCount === 0) throw new NotFoundError('sync', syncId);
    throw new NotFoundError('node', `${nodeId} in sync ${syncId}`);
  }
  throw new NotFoundError('node', `${nodeId} (in any completed sync of its source)`);
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
}

/**
 * Every edge touching the file's vertex, in both directions and of every label (the parent edge table covers labels
 * added later), with the vertex at the other end. Index scans throughout: the File vertex by its file_id expression
 * index, edges by start_id / end_id, the other vertex by id.
 */
export const neighborsSql = `WITH me AS (
       SELECT id FROM service."File"
        WHERE ag_catalog.agtype_access_operator(properties, '"file_id"'::ag_catalog.agtype) = $1::text::ag_catalog.agtype
     ), e AS (
       SELECT e.tableoid AS rel, e.end_id AS other, e.properties, 'out' AS direction
         FROM service._ag_label_edge e JOIN me ON e.start_id = me.id
       UNION ALL
       SELECT e.tableoid, e.start_id, e.properties, 'in'
         FROM service._ag_label_edge e JOIN me ON e.end_id = me.id
     )
     SELECT rc.relname AS rel_type, e.direction,
            (e.properties ->> '"weight"'::ag_catalog.agtype)::float8 AS weight,
            vc.relname AS label,
            v.properties ->> '"file_id"'::ag_catalog.agtype AS file_id,
            v.properties ->> '"source_id"'::ag_catalog.agtype AS source_id,
            v.properties ->> '"file_path"'::ag_catalog.agtype AS file_path,
            v.properties ->> '"name"'::ag_catalog.agtype AS name,
            v.properties ->> '"type"'::ag_catalog.agtype AS type,
            v.properties ->> '"symbol_id"'::ag_catalog.agtype AS symbol_id,
            v.properties ->> '"kind"'::ag_catalog.agtype AS kind,
            (v.properties ->> '"line"'::ag_catalog.agtype)::int AS line
       FROM e
       JOIN service._ag_label_vertex v ON v.id = e.other
       JOIN pg_class rc ON rc.oid = e.rel
       JOIN pg_class vc ON vc.oid = v.tableoid
      ORDER BY rc.relname, e.direction DESC, name, file_path, line`;

export async function neighbors(db: Db, fileId: string): Promise<NeighborRow[]> {
  const res = await db.query<NeighborRow>(neighborsSql, [JSON.stringify(fileId)]);
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
