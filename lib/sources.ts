/** The few reads of sources the ingestion component and the schedules' trigger activities make. */
import type { Queryable } from './db.ts';

export interface SourceRow {
  id: string;
  owner: string;
  name: string;
  default_branch: string;
  config: Record<string, unknown>;
  enabled: boolean;
  last_sync_id: string | null;
}

/** `lock` takes a KEY SHARE lock: the source cannot be deleted under the caller's transaction. */
export async function getSource(db: Queryable, sourceId: string, lock = false): Promise<SourceRow | undefined> {
  const r = await db.query<SourceRow>(
    `SELECT id, owner, name, default_branch, config, enabled, last_sync_id FROM sources WHERE id = $1
     ${lock ? 'FOR KEY SHARE' : ''}`,
    [sourceId],
  );
  return r.rows[0];
}

export function sourceName(s: Pick<SourceRow, 'owner' | 'name'>): string {
  return `${s.owner}/${s.name}`;
}

/**
 * The effective configuration of a run: the source's config with the overrides merged over it, key by key at the
 * top level (an override replaces the whole value of its key, e.g. a list `include_paths`).
 */
export function effectiveConfig(
  sourceConfig: Record<string, unknown>,
  overrides: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return { ...sourceConfig, ...(overrides ?? {}) };
}
