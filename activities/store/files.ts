/** File records of analysed files: their shared contents and the sync's rows. Idempotent by (sync_id, file_path). */
import type { Queryable } from '../../lib/db.ts';
import type { EngineIssue, FileAnalysis } from '../../engine/types.ts';
import { errorMessage, writeInBatches } from './batch.ts';

export interface FileWriteContext {
  syncId: string;
  sourceId: string;
  commitSha?: string | null;
  commitAt?: Date | string | null;
  /**
   * The engine version and options that produced the analyses; a later sync reuses a file only when its own key is
   * equal. Absent: the analyses are never reused.
   */
  analysisKey?: string;
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
> &
  Partial<Pick<FileAnalysis, 'binary' | 'symbols' | 'imports' | 'issues'>>;

/**
 * One statement per batch: the analysed contents (file_contents, shared with later syncs that find the same path
 * and content) with their symbols' rows (file_content_symbols: search, and the symbol graph's key, kind, lines,
 * signature and doc), then the sync's rows (sync_files) pointing at
 * them. See schema V12 and V20.
 */
const INSERT_FILES = `
  WITH r AS (
    SELECT * FROM jsonb_to_recordset($5::jsonb) AS r(file_path text, name text, type text, domain text, language text,
         size_bytes integer, line_count integer, imports_count integer, exports text[], content_hash text,
         is_binary boolean, symbols jsonb, imports jsonb, issues jsonb)
  ), kept AS (
    -- Written before by this sync with the same content and analysis (a retried batch): keep that content.
    SELECT s.file_path, s.content_id AS id
      FROM r JOIN sync_files s ON s.sync_id = $1 AND s.file_path = r.file_path
      JOIN file_contents c ON c.id = s.content_id AND c.content_hash = r.content_hash AND c.analysis_key = $6
  ), c AS (
    INSERT INTO file_contents (source_id, file_path, content_hash, analysis_key, name, type, domain, language,
                               size_bytes, line_count, imports_count, exports, is_binary, symbols, imports, issues)
    SELECT $2, r.file_path, r.content_hash, $6, r.name, r.type, r.domain, r.language, r.size_bytes, r.line_count,
           r.imports_count, r.exports, r.is_binary, r.symbols, r.imports, r.issues
      FROM r WHERE r.file_path NOT IN (SELECT file_path FROM kept)
    RETURNING id, file_path
  ), sym AS (
    -- A new content's symbols, for symbol search (schema V20): written once per content, shared by its syncs.
    INSERT INTO file_content_symbols (content_id, ordinal, name, kind, line, key, symbol_kind, end_line, signature, doc)
    SELECT c.id, (e.ord - 1)::int, e.s ->> 'name', e.s ->> 'kind', (e.s ->> 'line')::int, e.s ->> 'key',
           e.s ->> 'symbol_kind', (e.s ->> 'end_line')::int, e.s ->> 'signature', e.s ->> 'doc'
      FROM c JOIN r ON r.file_path = c.file_path
      CROSS JOIN LATERAL jsonb_array_elements(r.symbols) WITH ORDINALITY AS e(s, ord)
  ), n AS (
    SELECT file_path, id FROM c UNION ALL SELECT file_path, id FROM kept
  )
  INSERT INTO sync_files AS f (sync_id, source_id, file_path, content_id, last_commit_sha, last_commit_at)
  SELECT $1, $2, n.file_path, n.id, $3, $4 FROM n
  ON CONFLICT (sync_id, file_path) DO UPDATE SET
    content_id = EXCLUDED.content_id, last_commit_sha = EXCLUDED.last_commit_sha,
    last_commit_at = EXCLUDED.last_commit_at, description = NULL, description_generated_at = NULL
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
        is_binary: f.binary ?? false,
        symbols: f.symbols ?? [],
        imports: f.imports ?? [],
        issues: f.issues ?? [],
      }));
      const res = await db.query<{ id: string; file_path: string }>(INSERT_FILES, [
        ctx.syncId,
        ctx.sourceId,
        ctx.commitSha ?? null,
        commitAt,
        JSON.stringify(rows),
        ctx.analysisKey ?? '',
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
