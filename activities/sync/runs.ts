/** Typed queries on sync_runs and sources used by the sync activities. */
import type { Queryable } from '../../lib/db.ts';

export interface RunRow {
  id: string;
  source_id: string;
  status: string;
  ref: string | null;
  triggered_by: string | null;
  config_snapshot: Record<string, unknown>;
  started_at: Date | null;
  progress_meta: Record<string, unknown>;
  source_enabled: boolean;
  source_owner: string;
  source_name: string;
  source_url: string | null;
  default_branch: string;
}

/**
 * The run with its source, locked against other status changes when `lock` (call inside a transaction). The lock is
 * FOR NO KEY UPDATE, not FOR UPDATE: it serialises the steps' claims and status changes (UPDATEs and the ingestion
 * side's FOR UPDATE conflict with it) but not the foreign-key checks of rows referencing the run, which take FOR KEY
 * SHARE on it. With FOR UPDATE, a step's claim waited for every open transaction that had inserted a sync_files,
 * sync_steps or sync_issues row of the run: each parseBatch waited for the batch write in progress to commit (up to
 * seconds, with the parse threads idle; docs/decisions.md "Row writes of a full sync").
 */
export async function loadRun(db: Queryable, syncId: string, lock = false): Promise<RunRow | null> {
  const r = await db.query<RunRow>(
    `SELECT r.id, r.source_id, r.status, r.ref, r.triggered_by, r.config_snapshot, r.started_at, r.progress_meta,
            s.enabled AS source_enabled, s.owner AS source_owner, s.name AS source_name, s.url AS source_url,
            s.default_branch
       FROM sync_runs r JOIN sources s ON s.id = r.source_id
      WHERE r.id = $1 ${lock ? 'FOR NO KEY UPDATE OF r' : ''}`,
    [syncId],
  );
  return r.rows[0] ?? null;
}

/** The source's code-host token, or null. Read only where it is used; never logged or returned. */
export async function loadAccessToken(db: Queryable, sourceId: string): Promise<string | null> {
  const r = await db.query<{ access_token: string }>(`SELECT access_token FROM source_secrets WHERE source_id = $1`, [
    sourceId,
  ]);
  const token = r.rows[0]?.access_token;
  return token ? token : null;
}
