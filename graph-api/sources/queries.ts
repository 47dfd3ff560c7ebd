/**
 * Source rows. The code-host token lives in source_secrets; these queries only ever read whether one exists.
 */
import type { Queryable } from '../../lib/db.ts';
import type { CursorKey } from '../../lib/validate.ts';

export interface SourceRow {
  id: string;
  source_type: string;
  owner: string;
  name: string;
  url: string | null;
  default_branch: string;
  config: Record<string, unknown>;
  enabled: boolean;
  last_sync_id: string | null;
  last_synced_at: Date | null;
  meta: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  has_access_token: boolean;
  has_webhook_secret: boolean;
  /** created_at at full (microsecond) precision, for keyset cursors. */
  cursor_t: string;
}

const COLUMNS = `s.id, s.source_type, s.owner, s.name, s.url, s.default_branch, s.config, s.enabled, s.last_sync_id,
  s.last_synced_at, s.meta, s.created_at, s.updated_at,
  EXISTS (SELECT 1 FROM source_secrets x WHERE x.source_id = s.id) AS has_access_token,
  EXISTS (SELECT 1 FROM source_webhook_secrets w WHERE w.source_id = s.id) AS has_webhook_secret,
  to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_t`;

export async function listSources(db: Queryable, limit: number, after?: CursorKey): Promise<SourceRow[]> {
  const res = await db.query<SourceRow>(
    `SELECT ${COLUMNS} FROM sources s
      WHERE ($1::timestamptz IS NULL OR (s.created_at, s.id) < ($1::timestamptz, $2::uuid))
      ORDER BY s.created_at DESC, s.id DESC
      LIMIT $3`,
    [after?.t ?? null, after?.id ?? null, limit],
  );
  return res.rows;
}

export async function getSource(db: Queryable, id: string): Promise<SourceRow | undefined> {
  const res = await db.query<SourceRow>(`SELECT ${COLUMNS} FROM sources s WHERE s.id = $1`, [id]);
  return res.rows[0];
}

export interface SourceUpsert {
  source_type: string;
  owner: string;
  name: string;
  /**
   * Fields left undefined keep their stored value on update and take the column default on create (a github_repo
   * without a url gets https://github.com/<owner>/<name>.git).
   */
  url?: string | null;
  default_branch?: string;
  config?: Record<string, unknown>;
  enabled?: boolean;
  meta?: Record<string, unknown>;
}

/** Inserts or updates by (source_type, owner, name); `created` tells which happened. */
export async function upsertSource(db: Queryable, s: SourceUpsert): Promise<{ id: string; created: boolean }> {
  const res = await db.query<{ id: string; created: boolean }>(
    `INSERT INTO sources AS t (source_type, owner, name, url, default_branch, config, enabled, meta)
     VALUES ($1, $2, $3,
             COALESCE($4, CASE WHEN $1 = 'github_repo' THEN 'https://github.com/' || $2 || '/' || $3 || '.git' END),
             COALESCE($5, 'main'), COALESCE($6::jsonb, '{}'::jsonb), COALESCE($7, true),
             COALESCE($8::jsonb, '{}'::jsonb))
     ON CONFLICT (source_type, owner, name) DO UPDATE SET
       url = CASE WHEN $9 THEN EXCLUDED.url ELSE t.url END,
       default_branch = COALESCE($5, t.default_branch),
       config = COALESCE($6::jsonb, t.config),
       enabled = COALESCE($7, t.enabled),
       meta = COALESCE($8::jsonb, t.meta)
     RETURNING t.id, (xmax = 0) AS created`,
    [
      s.source_type,
      s.owner,
      s.name,
      s.url ?? null,
      s.default_branch ?? null,
      s.config === undefined ? null : JSON.stringify(s.config),
      s.enabled ?? null,
      s.meta === undefined ? null : JSON.stringify(s.meta),
      s.url !== undefined,
    ],
  );
  const row = res.rows[0];
  if (!row) throw new Error('source upsert returned no row');
  return row;
}

export interface SourcePatch {
  url?: string | null;
  default_branch?: string;
  config?: Record<string, unknown>;
  enabled?: boolean;
  meta?: Record<string, unknown>;
}

/** Applies the given fields; returns false when the source does not exist. */
export async function patchSource(db: Queryable, id: string, p: SourcePatch): Promise<boolean> {
  const res = await db.query(
    `UPDATE sources SET
       url = CASE WHEN $2 THEN $3 ELSE url END,
       default_branch = COALESCE($4, default_branch),
       config = COALESCE($5::jsonb, config),
       enabled = COALESCE($6, enabled),
       meta = COALESCE($7::jsonb, meta)
     WHERE id = $1`,
    [
      id,
      p.url !== undefined,
      p.url ?? null,
      p.default_branch ?? null,
      p.config === undefined ? null : JSON.stringify(p.config),
      p.enabled ?? null,
      p.meta === undefined ? null : JSON.stringify(p.meta),
    ],
  );
  return (res.rowCount ?? 0) > 0;
}

/** Sets (string) or removes (null) the source's code-host token. */
export async function setAccessToken(db: Queryable, sourceId: string, token: string | null): Promise<void> {
  if (token === null) {
    await db.query(`DELETE FROM source_secrets WHERE source_id = $1`, [sourceId]);
    return;
  }
  await db.query(
    `INSERT INTO source_secrets (source_id, access_token) VALUES ($1, $2)
     ON CONFLICT (source_id) DO UPDATE SET access_token = EXCLUDED.access_token, updated_at = now()`,
    [sourceId, token],
  );
}

/** Sets (string) or removes (null) the secret the code host signs webhook deliveries with (docs/webhooks.md). */
export async function setWebhookSecret(db: Queryable, sourceId: string, secret: string | null): Promise<void> {
  if (secret === null) {
    await db.query(`DELETE FROM source_webhook_secrets WHERE source_id = $1`, [sourceId]);
    return;
  }
  await db.query(
    `INSERT INTO source_webhook_secrets (source_id, secret) VALUES ($1, $2)
     ON CONFLICT (source_id) DO UPDATE SET secret = EXCLUDED.secret, updated_at = now()`,
    [sourceId, secret],
  );
}

/** Deletes the source; the database cascades to runs, issues, schedules, files, chunks, secrets and graph rows. */
export async function deleteSource(db: Queryable, id: string): Promise<boolean> {
  const res = await db.query(`DELETE FROM sources WHERE id = $1`, [id]);
  return (res.rowCount ?? 0) > 0;
}
