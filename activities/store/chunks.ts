/**
 * Content chunks of file records, written to the file record's shared content (schema V12). Idempotent by (file
 * record, chunk_index). Each row carries its identifier-aware search terms (lib/search-vector.ts), computed by the
 * engine with the chunk (in its parse threads, off the writer's path) as a binary tsvector. The two large columns
 * travel as binary array parameters beside the JSON rows of the small ones, zipped with them by ROWS FROM (row i with
 * element i): the batch's terms as one tsvector[], its contents as one text[] (lib/pg-binary.ts: no JSON escaping in
 * Node, no JSON parsing in PostgreSQL).
 */
import type { Queryable } from '../../lib/db.ts';
import { textArray } from '../../lib/pg-binary.ts';
import { searchVectorArray } from '../../lib/search-vector.ts';
import type { ChunkInfo, EngineIssue } from '../../engine/types.ts';
import { errorMessage, writeInBatches } from './batch.ts';

export interface FileChunks {
  fileId: string;
  /** For issue messages. */
  filePath?: string;
  chunks: readonly ChunkInfo[];
}

/** Chunks belong to the file record's content (schema V12), shared with later syncs that reuse the file. */
const INSERT_CHUNKS = `
  INSERT INTO file_content_chunks AS c (content_id, chunk_index, content, start_line, end_line, token_count, language,
                                        chunk_type, symbols, search_terms)
  SELECT s.content_id, r.chunk_index, r.content, r.start_line, r.end_line, r.token_count, r.language, r.chunk_type,
         r.symbols, r.search_terms
    FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (file_id uuid, chunk_index integer, start_line integer,
                      end_line integer, token_count integer, language text, chunk_type text, symbols text[]),
                    unnest($3::tsvector[]), unnest($4::text[]))
         AS r(file_id, chunk_index, start_line, end_line, token_count, language, chunk_type, symbols, search_terms,
              content)
    JOIN sync_files s ON s.id = r.file_id AND s.sync_id = $1
  ON CONFLICT (content_id, chunk_index) DO UPDATE SET
    content = EXCLUDED.content, start_line = EXCLUDED.start_line, end_line = EXCLUDED.end_line,
    token_count = EXCLUDED.token_count, language = EXCLUDED.language, chunk_type = EXCLUDED.chunk_type,
    symbols = EXCLUDED.symbols, search_terms = EXCLUDED.search_terms
  RETURNING c.id`;

interface ChunkRow extends ChunkInfo {
  file_id: string;
  file_path?: string;
}

export async function writeChunks(
  db: Queryable,
  syncId: string,
  items: readonly FileChunks[],
): Promise<{ written: number; issues: EngineIssue[] }> {
  const rows: ChunkRow[] = [];
  for (const item of items) {
    for (const chunk of item.chunks)
      rows.push({ ...chunk, file_id: item.fileId, ...(item.filePath ? { file_path: item.filePath } : {}) });
  }
  const outcome = await writeInBatches(
    rows,
    async (batch) => {
      const payload = batch.map(({ file_path: _p, search_terms: _t, content: _c, ...r }) => r);
      const terms = searchVectorArray(batch.map((r) => r.search_terms));
      const content = textArray(batch.map((r) => r.content));
      const res = await db.query<{ id: string }>(INSERT_CHUNKS, [syncId, JSON.stringify(payload), terms, content]);
      return res.rows;
    },
    (row, err) => ({
      level: 'error',
      phase: 'storing',
      code: 'chunk_row_rejected',
      message: `chunk ${row.chunk_index} not written: ${errorMessage(err)}`,
      ...(row.file_path ? { file_path: row.file_path } : {}),
      context: { chunk_index: row.chunk_index, start_line: row.start_line, end_line: row.end_line },
    }),
  );
  return { written: outcome.results.length, issues: outcome.issues };
}
