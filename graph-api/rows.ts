/**
 * JSON representation of the rows only the graph component serves (sources, sync issues): timestamps as ISO
 * strings, bigint ids as numbers, secrets never. Sync runs and schedules: lib/resources.ts.
 */
import type { Source } from '../lib/api/routes/sources.ts';
import type { Issue } from '../lib/api/routes/syncs.ts';
import { scrubUrl } from '../lib/source-url.ts';
import type { SourceRow } from './sources/queries.ts';
import type { IssueRow } from './syncs/queries.ts';

export type Json = Record<string, unknown>;

export function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

export function sourceJson(r: SourceRow): Source {
  return {
    id: r.id,
    source_type: r.source_type,
    owner: r.owner,
    name: r.name,
    // A URL stored with credentials before they were refused (docs/security.md) is returned without them.
    url: r.url === null ? null : scrubUrl(r.url),
    default_branch: r.default_branch,
    config: r.config,
    enabled: r.enabled,
    last_sync_id: r.last_sync_id,
    last_synced_at: iso(r.last_synced_at),
    meta: r.meta,
    has_access_token: r.has_access_token,
    has_webhook_secret: r.has_webhook_secret,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function issueJson(r: IssueRow): Issue {
  return {
    id: Number(r.id),
    sync_id: r.sync_id,
    level: r.level as Issue['level'],
    phase: r.phase,
    code: r.code,
    message: r.message,
    context: r.context,
    occurred_at: iso(r.occurred_at),
  };
}
