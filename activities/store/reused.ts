/**
 * File records of reused files: one narrow sync_files row each, pointing at the content an earlier sync analysed
 * (schema V12). No chunk rows, no full-text index entries, no vectors are written. Idempotent by (sync_id, file_path).
 * Their graph is written from the stored rows (reused-graph.ts).
 */
import type { Queryable } from '../../lib/db.ts';
import type { EngineIssue } from '../../engine/types.ts';
import type { ImportRef } from '../../engine/languages/plugin.ts';
import { errorMessage, writeInBatches } from './batch.ts';
import type { FileWriteContext, FileWriteResult } from './files.ts';

export interface ReusedRow {
  file_path: string;
  content_id: string;
  /** The cached summary to carry (null: none). */
  description: string | null;
  description_generated_at: string | null;
}

const INSERT_REUSED = `
  INSERT INTO sync_files AS f (sync_id, source_id, file_path, content_id, description, description_generated_at,
                               last_commit_sha, last_commit_at)
  SELECT $1, $2, r.file_path, r.content_id, r.description, r.description_generated_at, $3, $4
    FROM jsonb_to_recordset($5::jsonb) AS r(file_path text, content_id uuid, description text,
         description_generated_at timestamptz)
  ON CONFLICT (sync_id, file_path) DO UPDATE SET
    content_id = EXCLUDED.content_id, description = EXCLUDED.description,
    description_generated_at = EXCLUDED.description_generated_at, last_commit_sha = EXCLUDED.last_commit_sha,
    last_commit_at = EXCLUDED.last_commit_at
  RETURNING f.id, f.file_path`;

export async function writeReusedFileRecords(
  db: Queryable,
  ctx: FileWriteContext,
  rows: readonly ReusedRow[],
): Promise<FileWriteResult> {
  const commitAt = ctx.commitAt instanceof Date ? ctx.commitAt.toISOString() : (ctx.commitAt ?? null);
  const outcome = await writeInBatches(
    rows,
    async (batch) =>
      (
        await db.query<{ id: string; file_path: string }>(INSERT_REUSED, [
          ctx.syncId,
          ctx.sourceId,
          ctx.commitSha ?? null,
          commitAt,
          JSON.stringify(batch),
        ])
      ).rows,
    (row, err): EngineIssue => ({
      level: 'error',
      phase: 'storing',
      code: 'file_row_rejected',
      message: `file record not written: ${errorMessage(err)}`,
      file_path: row.file_path,
    }),
  );
  return { ids: new Map(outcome.results.map((r) => [r.file_path, r.id])), issues: outcome.issues };
}

/** Drops the carried summaries of these files of a sync (their neighbourhood changed). */
export async function dropSummaries(db: Queryable, syncId: string, paths: readonly string[]): Promise<number> {
  if (paths.length === 0) return 0;
  const res = await db.query(
    `UPDATE sync_files SET description = NULL, description_generated_at = NULL
      WHERE sync_id = $1 AND file_path = ANY($2::text[]) AND description IS NOT NULL`,
    [syncId, paths],
  );
  return res.rowCount ?? 0;
}

// ------------------------------------------------------------------------------------------------------ readers

/** Paths and content hashes of a sync's files. */
export async function contentHashes(db: Queryable, syncId: string): Promise<Map<string, string>> {
  const r = await db.query<{ file_path: string; content_hash: string }>(
    `SELECT s.file_path, c.content_hash FROM sync_files s JOIN file_contents c ON c.id = s.content_id
      WHERE s.sync_id = $1`,
    [syncId],
  );
  return new Map(r.rows.map((x) => [x.file_path, x.content_hash]));
}

/** Content hashes by content row id. */
export async function contentHashesById(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  const r = await db.query<{ id: string; content_hash: string }>(
    `SELECT id::text AS id, content_hash FROM file_contents WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(r.rows.map((x) => [x.id, x.content_hash]));
}

/** The paths of a sync's files that carry a summary. */
export async function describedPaths(db: Queryable, syncId: string): Promise<string[]> {
  const r = await db.query<{ file_path: string }>(
    `SELECT file_path FROM sync_files WHERE sync_id = $1 AND description IS NOT NULL`,
    [syncId],
  );
  return r.rows.map((x) => x.file_path);
}

export interface SyncFileRow {
  file_path: string;
  content_id: string;
  described: boolean;
}

/** A sync's files, through the (sync_id, file_path) index: the cost follows the sync, not the database. */
export async function syncFileRows(db: Queryable, syncId: string): Promise<SyncFileRow[]> {
  const r = await db.query<SyncFileRow>(
    `SELECT file_path, content_id::text AS content_id, description IS NOT NULL AS described
       FROM sync_files WHERE sync_id = $1`,
    [syncId],
  );
  return r.rows;
}

/**
 * The sync a run compares with: the source's newest completed sync other than the run (or `previousSyncId`, the one
 * an earlier attempt of the run recorded, if it is still the source's), with the commit it read.
 */
export async function previousCompletedSync(
  db: Queryable,
  o: { sourceId: string; syncId: string; previousSyncId?: string | null },
): Promise<{ id: string; commit: string | null } | undefined> {
  const r = await db.query<{ id: string; commit: string | null }>(
    o.previousSyncId === undefined || o.previousSyncId === null
      ? `SELECT id, stats ->> 'commit_sha' AS commit FROM sync_runs
          WHERE source_id = $1 AND status = 'completed' AND id <> $2
          ORDER BY created_at DESC, id DESC LIMIT 1`
      : `SELECT id, stats ->> 'commit_sha' AS commit FROM sync_runs WHERE id = $3 AND source_id = $1 AND id <> $2`,
    [o.sourceId, o.syncId, ...(o.previousSyncId === undefined || o.previousSyncId === null ? [] : [o.previousSyncId])],
  );
  return r.rows[0];
}

/** A file of the previous sync with what reuse needs of its content. */
export interface PreviousRow {
  file_path: string;
  content_id: string;
  content_hash: string;
  analysis_key: string;
  language: string;
  imports: ImportRef[];
  name: string;
  type: string;
  domain: string;
  binary: boolean;
  symbols: number;
  issues: EngineIssue[];
  has_vector: boolean;
  chunks: number;
  chunks_without_vector: number;
  description: string | null;
  description_generated_at: Date | null;
}

/** Every file of a sync with its content's analysis (reuse reads them once per run). */
export async function previousFileRows(db: Queryable, syncId: string): Promise<PreviousRow[]> {
  const r = await db.query<PreviousRow>(
    `SELECT s.file_path, s.content_id, c.content_hash, c.analysis_key, c.language, c.imports, c.name, c.type,
            c.domain, c.is_binary AS binary, coalesce(jsonb_array_length(c.symbols), 0) AS symbols, c.issues, c.embedding IS NOT NULL AS has_vector,
            (SELECT count(*)::int FROM file_content_chunks k WHERE k.content_id = c.id) AS chunks,
            (SELECT count(*)::int FROM file_content_chunks k
              WHERE k.content_id = c.id AND k.embedding IS NULL) AS chunks_without_vector,
            s.description, s.description_generated_at
       FROM sync_files s JOIN file_contents c ON c.id = s.content_id
      WHERE s.sync_id = $1`,
    [syncId],
  );
  return r.rows;
}

/** A sync's depends_on edges by the paths of their ends (read from the graph it shares, when it shares one: V50). */
export async function dependsOnByPath(
  db: Queryable,
  syncId: string,
): Promise<Array<{ s: string; t: string; w: number | null }>> {
  const r = await db.query<{ s: string; t: string; w: number | null }>(
    `WITH v AS (
       SELECT id, properties ->> '"file_path"'::ag_catalog.agtype AS p
         FROM service."File"
        WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype)
              = ('"' || graph_sync_of($1::uuid)::text || '"')::ag_catalog.agtype
     )
     SELECT a.p AS s, b.p AS t, (e.properties ->> '"weight"'::ag_catalog.agtype)::float8 AS w
       FROM v a JOIN service.depends_on e ON e.start_id = a.id JOIN v b ON b.id = e.end_id`,
    [syncId],
  );
  return r.rows;
}
