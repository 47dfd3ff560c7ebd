/** GET /api/graph/search (the specification's file search), /api/graph/search/files, /chunks and /symbols. */
import type Router from '@koa/router';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import { searchChunks } from './chunks.ts';
import { parseChunkSearchParams, parseFileSearchParams, parseSymbolSearchParams } from './params.ts';
import { resolveSyncIds } from './scope.ts';
import { searchFiles, searchFilesNamesFirst, searchInput } from './search.ts';
import { searchSymbols } from './symbols.ts';

export function searchRoutes(router: Router, deps: GraphAppDeps): void {
  const { pool, graphTimeoutMs } = deps;

  router.get('/api/graph/search', async (ctx) => {
    const p = parseFileSearchParams(ctx.query);
    // The embedding call happens before any connection is taken from the pool.
    const vector = await deps.embedder.embedOne(searchInput(p.q));
    const results = await withReadTx(pool, graphTimeoutMs, async (tx) =>
      searchFiles(tx, vector, { type: p.type, limit: p.limit, syncIds: await resolveSyncIds(tx, p.scope) }),
    );
    ctx.body = { results };
  });

  router.get('/api/graph/search/chunks', async (ctx) => {
    const started = performance.now();
    const p = parseChunkSearchParams(ctx.query);
    // The query is embedded before a connection is taken from the pool.
    const vector = p.mode === 'lexical' ? null : await deps.embedder.embedOne(searchInput(p.q));
    const embedded = performance.now();
    const result = await withReadTx(pool, graphTimeoutMs, (tx) => searchChunks(tx, p, vector));
    const done = performance.now();
    ctx.body = {
      ...result,
      meta: { ...result.meta, query_ms: Math.round(done - embedded), embed_ms: Math.round(embedded - started) },
    };
  });

  router.get('/api/graph/search/files', async (ctx) => {
    const p = parseFileSearchParams(ctx.query);
    const vector = await deps.embedder.embedOne(searchInput(p.q));
    const results = await withReadTx(pool, graphTimeoutMs, async (tx) => {
      const syncIds = await resolveSyncIds(tx, p.scope);
      return searchFilesNamesFirst(tx, vector, { type: p.type, limit: p.limit, syncIds }, p.q);
    });
    ctx.body = { results };
  });

  router.get('/api/graph/search/symbols', async (ctx) => {
    const started = performance.now();
    const p = parseSymbolSearchParams(ctx.query);
    const result = await withReadTx(pool, graphTimeoutMs, (tx) => searchSymbols(tx, p));
    ctx.body = { ...result, meta: { ...result.meta, query_ms: Math.round(performance.now() - started) } };
  });
}
