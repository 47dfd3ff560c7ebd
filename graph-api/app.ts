/**
 * The graph component as a Koa app: request id and metrics, error middleware, /health, /ready and /metrics, the
 * OpenAPI document, then the routes.
 * `createGraphApp(deps)` takes everything from outside so tests run it in-process over real HTTP.
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { InvalidArgumentError } from '../lib/errors.ts';
import { errorMiddleware, healthRoute } from '../lib/http.ts';
import { observeRequests } from '../lib/observe.ts';
import { opsRoutes } from '../lib/ops-routes.ts';
import { createReadiness, databaseCheck } from '../lib/readiness.ts';
import { prReportRoutes } from './analysis/pr-report.ts';
import { analysisRoutes } from './analysis/routes.ts';
import { MergedCache, SnapshotCache } from './caches.ts';
import type { GraphAppDeps } from './deps.ts';
import { graphRoutes } from './graph/routes.ts';
import { nodeRoutes } from './graph/node-routes.ts';
import { openApiDocument } from './openapi.ts';
import { searchRoutes } from './search/routes.ts';
import { sourceRoutes } from './sources/routes.ts';
import { syncRoutes } from './syncs/routes.ts';
import { symbolRoutes } from './symbols/routes.ts';
import { SymbolGraphCache } from './symbols/snapshot.ts';
import { collectStorageMetrics } from './storage-metrics.ts';

export function createGraphApp(deps: GraphAppDeps): Koa {
  const app = new Koa();
  app.proxy = true;
  app.use(observeRequests());
  app.use(errorMiddleware(deps.log));
  app.use(healthRoute(deps.liveness ? [deps.liveness] : []));
  app.use(opsRoutes(deps.ready ?? createReadiness({ database: databaseCheck(deps.pool) })));
  // /metrics also says what history costs: database size, rows per label, syncs kept per source (issue 30).
  collectStorageMetrics(deps.pool);
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '1mb',
      onError: (err) => {
        throw new InvalidArgumentError('body', `is not valid JSON: ${err.message}`);
      },
    }),
  );
  const router = new Router();
  // Symbol graphs of final syncs, shared by the symbol reads and node detail of a symbol (issue 28).
  const symbols = new SymbolGraphCache(deps.symbolCacheBytes ?? 256 * 1024 * 1024);
  // Per-sync snapshots of the file graph, shared by the merged graph, impact, diff and the PR report.
  const budget = deps.snapshotCacheBytes ?? 256 * 1024 * 1024;
  const caches = { snapshots: new SnapshotCache(budget), merged: new MergedCache(budget / 2) };
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument;
  });
  sourceRoutes(router, deps);
  syncRoutes(router, deps);
  graphRoutes(router, deps, caches);
  analysisRoutes(router, deps, caches.snapshots);
  prReportRoutes(router, deps, caches.snapshots, symbols);
  searchRoutes(router, deps);
  symbolRoutes(router, deps, symbols);
  app.use(nodeRoutes(deps, symbols));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
