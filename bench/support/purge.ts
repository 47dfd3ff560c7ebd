/**
 * Purging a bench source's history down to one sync through the API (DELETE /api/syncs/{id}), as an operator would.
 * The sync kept is the one holding the newest graph: the newest sync itself, or, when it is an unchanged re-sync that
 * shares an older sync's graph (V50), that older sync (a holder cannot be purged before its sharers; the newest sharer
 * goes first). Syncs are purged newest first, so sharers go before the graphs they share.
 */
import type pg from 'pg';
import { api } from './gateway.ts';

export async function purgeAllButOne(pool: pg.Pool, sourceId: string): Promise<number> {
  const all = await pool.query<{ id: string; graph_sync_id: string | null }>(
    `SELECT id, graph_sync_id FROM sync_runs WHERE source_id = $1 ORDER BY created_at DESC, id DESC`,
    [sourceId],
  );
  if (all.rows.length === 0) return 0;
  const keep = all.rows[0]!.graph_sync_id ?? all.rows[0]!.id;
  let purged = 0;
  for (const s of all.rows) {
    if (s.id === keep) continue;
    await api('DELETE', `/api/syncs/${s.id}`).catch((err: unknown) => {
      if (!(err instanceof SyntaxError)) throw err; // 204: no JSON body
    });
    purged++;
  }
  return purged;
}
