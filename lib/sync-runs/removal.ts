/**
 * Removing a sync, for the operator's commands (the ingestion component's clean and purge) and retention (the
 * worker's retention activities), each in the caller's transaction with its events:
 *
 * - clean: a completed or failed run becomes `cleaned` (status.ts: cleaned_at = now) and its graph is removed
 *   (`delete_sync_graph`: every label of the graph, and the registered per-sync graph tables); its file records,
 *   chunks, issues and steps stay. A graph that a sync not cleaned shares (V50) is removed with the last such sync.
 * - purge: the run's row is deleted; foreign keys cascade to its files, chunks, issues, steps and per-sync tables, a
 *   trigger removes its graph rows. A `sync_lifecycle` event with status `purged` reports it, and `source_changed`
 *   the source's new last_sync_id when the run was its source's last sync. A run whose graph rows other syncs share
 *   (V50) is not purged before them (FailedPreconditionError naming them; retention orders its purges so).
 */
import type { Queryable } from '../db.ts';
import { FailedPreconditionError } from '../errors.ts';
import { writeEvent } from '../events.ts';
import { writeLifecycleEvent } from './lifecycle.ts';
import { deleteSync, type SyncRunRow, type SyncStatus } from './row.ts';
import { changeStatus } from './status.ts';

export const CLEANABLE: readonly SyncStatus[] = ['completed', 'failed'];

/**
 * Cleans the run if it is completed or failed (and, with `unpinnedOnly`, not pinned). Returns the cleaned row and the
 * graph rows removed, or undefined when the run does not exist or may not be cleaned (then nothing changed).
 */
export async function cleanRun(
  tx: Queryable,
  syncId: string,
  opts: { unpinnedOnly?: boolean } = {},
): Promise<{ row: SyncRunRow; previous: SyncStatus; removed: number } | undefined> {
  const changed = await changeStatus(tx, {
    syncId,
    from: CLEANABLE,
    to: 'cleaned',
    unpinnedOnly: opts.unpinnedOnly === true,
  });
  if (!changed) return undefined;
  // A graph another kept sync shares (an unchanged re-sync, schema V50) stays until that sync is cleaned too; cleaning
  // the last sync sharing a cleaned sync's graph removes it. Readers never see it for a cleaned sync (graph_sync_of).
  const own = await tx.query<{ n: string; holder: string | null }>(
    `SELECT (CASE WHEN graph_shared(id) THEN 0 ELSE delete_sync_graph(id) END)::text AS n, graph_sync_id AS holder
       FROM sync_runs WHERE id = $1`,
    [syncId],
  );
  const removed = Number(own.rows[0]?.n ?? 0) + (await releaseGraph(tx, own.rows[0]?.holder));
  return { ...changed, removed };
}

/**
 * A sync stopped sharing the graph rows of `holderId` (it was cleaned, or reset): when the holder is cleaned and no
 * sync not cleaned shares its rows any more, they are removed. Returns the rows removed.
 */
export async function releaseGraph(tx: Queryable, holderId: string | null | undefined): Promise<number> {
  if (!holderId) return 0;
  const r = await tx.query<{ n: string }>(
    `SELECT delete_sync_graph(id)::text AS n FROM sync_runs WHERE id = $1 AND status = 'cleaned' AND NOT graph_shared(id)`,
    [holderId],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** The syncs whose graph is `syncId`'s graph rows (schema V50), oldest first. */
export async function sharedBy(tx: Queryable, syncId: string): Promise<string[]> {
  const r = await tx.query<{ id: string }>(
    `SELECT id FROM sync_runs WHERE graph_sync_id = $1 ORDER BY created_at, id`,
    [syncId],
  );
  return r.rows.map((x) => x.id);
}

/**
 * Deletes the run `current` (read under its row lock by the caller) with its events; the cascade and the graph
 * trigger remove everything of it.
 */
export async function purgeRun(tx: Queryable, current: SyncRunRow): Promise<void> {
  const sharing = await sharedBy(tx, current.id);
  if (sharing.length > 0) {
    throw new FailedPreconditionError(
      `sync ${current.id} holds the graph of syncs that share it (unchanged re-syncs): purge those first`,
      { shared_by: sharing },
    );
  }
  const source = await tx.query<{ last_sync_id: string | null }>(
    `SELECT last_sync_id FROM sources WHERE id = $1 FOR UPDATE`,
    [current.source_id],
  );
  const wasLast = source.rows[0]?.last_sync_id === current.id;
  await deleteSync(tx, current.id);
  await writeLifecycleEvent(tx, current, current.status, { status: 'purged' });
  if (!wasLast) return;
  const s = await tx.query<{ last_sync_id: string | null; last_synced_at: Date | null }>(
    `SELECT last_sync_id, last_synced_at FROM sources WHERE id = $1`,
    [current.source_id],
  );
  const src = s.rows[0];
  if (!src) return;
  await writeEvent(tx, {
    type: 'source_changed',
    sourceId: current.source_id,
    payload: {
      source_id: current.source_id,
      change: 'updated',
      last_sync_id: src.last_sync_id,
      last_synced_at: src.last_synced_at?.toISOString() ?? null,
    },
  });
}
