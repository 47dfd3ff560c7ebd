/** GET /api/graph: the merged graph of the requested syncs (spec graph rule 1). */
import { ServiceError } from '../../lib/errors.ts';
import type { ReadTx } from '../db/read.ts';
import type { MergedCache } from '../caches.ts';
import { SnapshotCache } from '../caches.ts';
import { mergeSnapshots } from './merge.ts';
import { snapshotOf, type SnapshotSync, type SyncSnapshot } from './snapshot.ts';
import { CACHED_LEVELS, ONE_OFF_LEVELS, SplitBody } from './split-body.ts';

/** A merged graph: the body without its meta object (`{"nodes":[...],"edges":[...],"meta":`) and the counts. */
export interface MergedResult {
  body: SplitBody;
  nodeCount: number;
  edgeCount: number;
  syncCount: number;
}

/**
 * The merged graph of the requested syncs. Unknown sync ids → 404 naming them. When every requested sync is final,
 * the result (its body bytes, and their compressed forms once asked for) comes from the cache.
 */
export async function mergedGraph(
  tx: ReadTx,
  caches: { snapshots: SnapshotCache; merged: MergedCache },
  syncIds: string[],
): Promise<MergedResult> {
  const rows = (
    await tx.query<SnapshotSync>(
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
  const hit = mergedKey === undefined ? undefined : caches.merged.get(mergedKey);
  if (hit) return { ...hit, syncCount: rows.length };
  const snapshots: SyncSnapshot[] = [];
  for (const sync of rows) snapshots.push(await snapshotOf(tx, caches.snapshots, sync));
  const merged = mergeSnapshots(snapshots);
  const result = {
    body: new SplitBody(merged.head, mergedKey === undefined ? ONE_OFF_LEVELS : CACHED_LEVELS),
    nodeCount: merged.nodeCount,
    edgeCount: merged.edgeCount,
  };
  if (mergedKey !== undefined) caches.merged.set(mergedKey, result);
  return { ...result, syncCount: rows.length };
}

/** The end of the body: the meta object (query_ms = time since the request began) and the closing brace. */
export function metaTail(merged: MergedResult, started: number): string {
  const meta = {
    node_count: merged.nodeCount,
    edge_count: merged.edgeCount,
    sync_count: merged.syncCount,
    query_ms: Math.round(performance.now() - started),
  };
  return JSON.stringify(meta) + '}';
}
