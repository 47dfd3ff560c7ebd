/** The source's secret as the clone and precise steps read it (the run's own row: lib/sync-runs). */
import type { Queryable } from '../../lib/db.ts';

/** The source's code-host token, or null. Read only where it is used; never logged or returned. */
export async function loadAccessToken(db: Queryable, sourceId: string): Promise<string | null> {
  const r = await db.query<{ access_token: string }>(`SELECT access_token FROM source_secrets WHERE source_id = $1`, [
    sourceId,
  ]);
  const token = r.rows[0]?.access_token;
  return token ? token : null;
}
