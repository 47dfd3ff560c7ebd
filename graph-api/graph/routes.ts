/** GET /api/graph (merged graph), /api/graph/stats, /api/graph/search, and impact and diff (analysis/routes.ts). */
import type Router from '@koa/router';
import { analysisRoutes } from '../analysis/routes.ts';
import { prReportRoutes } from '../analysis/pr-report.ts';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import { searchFiles, searchInput } from '../search/search.ts';
import { parseFileSearchParams } from '../search/params.ts';
import { resolveSyncIds } from '../search/scope.ts';
import type { SymbolGraphCache } from '../symbols/snapshot.ts';
import { MergedCache, SnapshotCache } from './cache.ts';
import { mergedGraph, metaTail } from './merged.ts';
import { negotiateEncoding, sendChunks } from './send.ts';
import { parseSyncIds } from './params.ts';
import { StatsCache } from './stats.ts';

export function graphRoutes(router: Router, deps: GraphAppDeps, symbols: SymbolGraphCache): void {
  const { pool, graphTimeoutMs } = deps;
  const budget = deps.snapshotCacheBytes ?? 256 * 1024 * 1024;
  const caches = { snapshots: new SnapshotCache(budget), merged: new MergedCache(budget / 2) };
  const stats = new StatsCache();
  // Impact and diff walk the same per-sync snapshots as the merged graph, from the same cache.
  analysisRoutes(router, deps, caches.snapshots);
  prReportRoutes(router, deps, caches.snapshots, symbols);

  router.get('/api/graph', async (ctx) => {
    const started = performance.now();
    const syncIds = parseSyncIds(ctx.query.sync_ids);
    const merged = await withReadTx(pool, graphTimeoutMs, (tx) => mergedGraph(tx, caches, syncIds));
    // Compression happens after the transaction: no connection is held while the head is compressed (once).
    const encoding = negotiateEncoding(ctx);
    await merged.body.prepare(encoding);
    sendChunks(ctx, encoding, await merged.body.chunks(encoding, metaTail(merged, started)));
  });

  router.get('/api/graph/stats', async (ctx) => {
    ctx.body = await withReadTx(pool, graphTimeoutMs, (tx) => stats.read(tx));
  });

  router.get('/api/graph/search', async (ctx) => {
    const p = parseFileSearchParams(ctx.query);
    // The embedding call happens before any connection is taken from the pool.
    const vector = await deps.embedder.embedOne(searchInput(p.q));
    const results = await withReadTx(pool, graphTimeoutMs, async (tx) =>
      searchFiles(tx, vector, { type: p.type, limit: p.limit, syncIds: await resolveSyncIds(tx, p.scope) }),
    );
    ctx.body = { results };
  });
}
