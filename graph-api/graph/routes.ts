/** GET /api/graph (merged graph) and /api/graph/stats, declared in lib/api/routes/graph.ts. */
import type Router from '@koa/router';
import { koaPath, mount, readInput } from '../../lib/api/route.ts';
import { getGraph, getStats } from '../../lib/api/routes/graph.ts';
import type { MergedCache, SnapshotCache } from '../caches.ts';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import { mergedGraph, metaTail } from './merged.ts';
import { negotiateEncoding, sendChunks } from './send.ts';
import { StatsCache } from './stats.ts';

export function graphRoutes(
  router: Router,
  deps: GraphAppDeps,
  caches: { snapshots: SnapshotCache; merged: MergedCache },
): void {
  const { pool, graphTimeoutMs } = deps;
  const stats = new StatsCache();

  // The body is sent in compressed chunks (send.ts), so the handler answers through ctx, not by returning it.
  router.get(koaPath(getGraph.path), async (ctx) => {
    const started = performance.now();
    const syncIds = readInput(getGraph, ctx).query.sync_ids;
    const merged = await withReadTx(pool, graphTimeoutMs, (tx) => mergedGraph(tx, caches, syncIds));
    // Compression happens after the transaction: no connection is held while the head is compressed (once).
    const encoding = negotiateEncoding(ctx);
    await merged.body.prepare(encoding);
    sendChunks(ctx, encoding, await merged.body.chunks(encoding, metaTail(merged, started)));
  });

  mount(router, getStats, () => withReadTx(pool, graphTimeoutMs, (tx) => stats.read(tx)));
}
