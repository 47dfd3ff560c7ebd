/** File records: one row per analysed file of a sync. Idempotent by (sync_id, file_path). */
import type { Queryable } from '../../lib/db.ts';
import type { EngineIssue, FileAnalysis } from '../engine/types.ts';
import { errorMessage, writeInBatches } from './batch.ts';

export interface FileWriteContext {
  syncId: string;
  sourceId: string;
  commitSha?: string | null;
  commitAt?: Date | string | null;
}

export interface FileWriteResult {
  /** file_path → file_records.id */
  ids: Map<string, string>;
  issues: EngineIssue[];
}

type FileRow = Pick<
  FileAnalysis,
  | 'file_path'
  | 'name'
  | 'type'
  | 'domain'
  | 'language'
  | 'size_bytes'
  | 'line_count'
  | 'imports_count'
  | 'exports'
  | 'content_hash'
>;

const INSERT_FILES = `
  INSERT INTO file_records AS f (sync_id, source_id, file_path, name, type, domain, language, size_bytes, line_count,
                                 imports_count, exports, content_hash, last_commit_sha, last_commit_at)
  SELECT $1, $2, r.file_path, r.name, r.type, r.domain, r.language, r.size_bytes, r.line_count, r.imports_count,
         r.exports, r.content_hash, $3, $4
    FROM jsonb_to_recordset($5::jsonb) AS r(file_path text, name text, type text, domain text, language text,
         size_bytes integer, line_count integer, imports_count integer, exports text[], content_hash text)
  ON CONFLICT (sync_id, file_path) DO UPDATE SET
    name = EXCLUDED.name, type = EXCLUDED.type, domain = EXCLUDED.domain, language = EXCLUDED.language,
    size_bytes = EXCLUDED.size_bytes, line_count = EXCLUDED.line_count, imports_count = EXCLUDED.imports_count,
    exports = EXCLUDED.exports, content_hash = EXCLUDED.content_hash, last_commit_sha = EXCLUDED.last_commit_sha,
    last_commit_at = EXCLUDED.last_commit_at
  RETURNING f.id, f.file_path`;

export async function writeFileRecords(
  db: Queryable,
  ctx: FileWriteContext,
  files: readonly FileRow[],
): Promise<FileWriteResult> {
  const commitAt = ctx.commitAt instanceof Date ? ctx.commitAt.toISOString() : (ctx.commitAt ?? null);
  const outcome = await writeInBatches(
    files,
    async (batch) => {
      const rows = batch.map((f) => ({
        file_path: f.file_path,
        name: f.name,
        type: f.type,
        domain: f.domain,
        language: f.language,
        size_bytes: f.size_bytes,
        line_count: f.line_count,
        imports_count: f.imports_count,
        exports: f.exports,
        content_hash: f.content_hash,
      }));
      const res = await db.query<{ id: string; file_path: string }>(INSERT_FILES, [
        ctx.syncId,
        ctx.sourceId,
        ctx.commitSha ?? null,
        commitAt,
        JSON.stringify(rows),
      ]);
      return res.rows;
    },
    (row, err) => ({
      level: 'error',
      phase: 'storing',
      code: 'file_row_rejected',
      message: `file record not written: ${errorMessage(err)}`,
      file_path: row.file_path,
    }),
  );
  return { ids: new Map(outcome.results.map((r) => [r.file_path, r.id])), issues: outcome.issues };
}
