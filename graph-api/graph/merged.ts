/** GET /api/graph: the merged graph of the requested syncs (spec graph rule 1). */
import { ServiceError } from '../../lib/errors.ts';
import type { ReadTx } from '../db/read.ts';
import type { MergedCache } from './cache.ts';
import { SnapshotCache } from './cache.ts';
import { mergeSnapshots, type MergedGraph } from './merge.ts';
import { loadSnapshot, type SyncSnapshot } from './snapshot.ts';

interface RequestedSync {
  id: string;
  source_id: string;
  status: string;
  completed_at: Date | null;
}

/** Returns the response body as a JSON string. Unknown sync ids → 404 naming them. */
export async function mergedGraph(
  tx: ReadTx,
  caches: { snapshots: SnapshotCache; merged: MergedCache },
  syncIds: string[],
  started: number,
): Promise<string> {
  const rows = (
    await tx.query<RequestedSync>(
      `SELECT id, source_id, status, completed_at FROM sync_runs WHERE id = ANY($1::uuid[])
        ORDER BY created_at DESC, id DESC`,
      [syncIds],
    )
  ).rows;
  if (rows.length !== syncIds.length) {
    const found = new Set(rows.map((r) => r.id));
    const unknown = syncIds.filter((id) => !found.has(id));
    throw new ServiceError('NOT_FOUND', 404, `unknown sync ids: ${unknown.join(', ')}`, {
      details: { unknown_sync_ids: unknown },
    });
  }
  // When every requested sync is final, the merged result cannot change either: it is cached as a whole.
  const keys = rows.map((sync) => SnapshotCache.key(sync));
  const mergedKey = keys.every((k) => k !== undefined) ? keys.join(',') : undefined;
  let merged: MergedGraph | undefined = mergedKey === undefined ? undefined : caches.merged.get(mergedKey);
  if (!merged) {
    const snapshots: SyncSnapshot[] = [];
    for (const [i, sync] of rows.entries()) {
      const key = keys[i];
      let snap = key === undefined ? undefined : caches.snapshots.get(key);
      if (!snap) {
        snap = await loadSnapshot(tx, sync);
        if (key !== undefined) caches.snapshots.set(key, snap);
      }
      snapshots.push(snap);
    }
    merged = mergeSnapshots(snapshots);
    if (mergedKey !== undefined) caches.merged.set(mergedKey, merged);
  }
  const meta = {
    node_count: merged.nodeCount,
    edge_count: merged.edgeCount,
    sync_count: rows.length,
    query_ms: Math.round(performance.now() - started),
  };
  return merged.head + JSON.stringify(meta) + '}';
}
