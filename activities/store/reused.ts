/**
 * File records of reused files: one narrow sync_files row each, pointing at the content an earlier sync analysed
 * (schema V12). No chunk rows, no full-text index entries, no vectors are written. Idempotent by (sync_id, file_path).
 * Their graph is written from the stored rows (reused-graph.ts).
 */
import type { Queryable } from '../../lib/db.ts';
import type { EngineIssue } from '../../engine/types.ts';
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
