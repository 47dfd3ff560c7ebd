/** Sync issues. The database caps them at 1000 per sync (trigger sync_issues_cap); extra ones are counted, not kept. */
import type { Queryable } from '../../lib/db.ts';
import type { EngineIssue } from '../../engine/types.ts';

/** Inserts issues in one short statement; returns how many were kept under the cap. */
export async function recordIssues(db: Queryable, syncId: string, issues: readonly EngineIssue[]): Promise<number> {
  if (issues.length === 0) return 0;
  const rows = issues.map((i) => ({
    level: i.level,
    phase: i.phase,
    code: i.code,
    message: i.message,
    context: { ...(i.file_path !== undefined ? { file_path: i.file_path } : {}), ...(i.context ?? {}) },
  }));
  const res = await db.query(
    `INSERT INTO sync_issues (sync_id, level, phase, code, message, context)
     SELECT $1, r.level, r.phase, r.code, r.message, r.context
       FROM jsonb_to_recordset($2::jsonb) AS r(level text, phase text, code text, message text, context jsonb)`,
    [syncId, JSON.stringify(rows)],
  );
  return res.rowCount ?? 0;
}
