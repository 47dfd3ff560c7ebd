/**
 * Pins (issue 30): `POST /api/syncs/{id}/pin` keeps a sync out of retention's reach (never cleaned or purged by
 * it, whatever its age; an operator's own clean and purge still work), `DELETE /api/syncs/{id}/pin` hands it back.
 * Both answer the sync; repeating either changes nothing. A `sync_pin_changed` event reports a change.
 */
import { withTransaction } from '../../../lib/db.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import { writeEvent } from '../../../lib/events.ts';
import { syncRunColumns, type SyncRunRow } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';

export async function setSyncPin(deps: IngestionDeps, syncId: string, pinned: boolean): Promise<SyncRunRow> {
  const result = await withTransaction(deps.pool, async (tx) => {
    const r = await tx.query<SyncRunRow & { was: boolean }>(
      `WITH prev AS (SELECT id, pinned FROM sync_runs WHERE id = $1 FOR UPDATE)
       UPDATE sync_runs s SET pinned = $2,
              pinned_at = CASE WHEN s.pinned = $2 THEN s.pinned_at WHEN $2 THEN now() ELSE NULL END
         FROM prev WHERE s.id = prev.id
       RETURNING ${syncRunColumns('s')}, prev.pinned AS was`,
      [syncId, pinned],
    );
    const raw = r.rows[0];
    if (!raw) throw new NotFoundError('sync', syncId);
    const { was, ...row } = raw;
    if (was !== pinned) {
      await writeEvent(tx, {
        type: 'sync_pin_changed',
        syncId: row.id,
        sourceId: row.source_id,
        payload: { sync_id: row.id, source_id: row.source_id, pinned, status: row.status },
      });
    }
    return { row, changed: was !== pinned };
  });
  if (result.changed) {
    deps.log.info(pinned ? 'sync_pinned' : 'sync_unpinned', { sync_id: syncId, source_id: result.row.source_id });
  }
  return result.row;
}
