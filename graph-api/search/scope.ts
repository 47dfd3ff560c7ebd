/**
 * The syncs a search reads. Default: each source's newest completed sync (by created_at), as file search and node
 * detail read; with source_id, that source's. Explicit sync_ids are read as they are (any status), narrowed to the
 * source when both are given; unknown ids are a 404 naming them, as the merged graph answers.
 */
import { NotFoundError, ServiceError } from '../../lib/errors.ts';
import type { ReadTx } from '../db/read.ts';
import type { Scope } from './params.ts';

export async function resolveSyncIds(tx: ReadTx, scope: Scope): Promise<string[]> {
  if (scope.syncIds) {
    const res = await tx.query<{ id: string; source_id: string }>(
      `SELECT id, source_id FROM sync_runs WHERE id = ANY($1::uuid[])`,
      [scope.syncIds],
    );
    const found = new Set(res.rows.map((r) => r.id));
    const unknown = scope.syncIds.filter((id) => !found.has(id));
    if (unknown.length > 0) {
      throw new ServiceError('NOT_FOUND', 404, `unknown sync ids: ${unknown.join(', ')}`, {
        details: { unknown_sync_ids: unknown },
      });
    }
    return res.rows.filter((r) => scope.sourceId === undefined || r.source_id === scope.sourceId).map((r) => r.id);
  }
  const res = await tx.query<{ id: string }>(
    `SELECT DISTINCT ON (source_id) id FROM sync_runs
      WHERE status = 'completed' AND ($1::uuid IS NULL OR source_id = $1)
        AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = sync_runs.id)
      ORDER BY source_id, created_at DESC, id DESC`,
    [scope.sourceId ?? null],
  );
  // An unknown source is a 404; checked only when it has no completed sync (one round trip less per search).
  if (res.rows.length === 0 && scope.sourceId !== undefined) {
    const src = await tx.query(`SELECT 1 FROM sources WHERE id = $1`, [scope.sourceId]);
    if (src.rowCount === 0) throw new NotFoundError('source', scope.sourceId);
  }
  return res.rows.map((r) => r.id).sort();
}
