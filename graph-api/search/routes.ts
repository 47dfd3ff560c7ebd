/**
 * GET /api/graph/search (the specification's file search), /api/graph/search/files, /chunks and /symbols, declared
 * in lib/api/routes/search.ts.
 */
import type Router from '@koa/router';
import { mount } from '../../lib/api/route.ts';
import {
  searchChunks as chunksRoute,
  searchFiles as filesRoute,
  searchFilesByMeaning,
  searchSymbols as symbolsRoute,
} from '../../lib/api/routes/search.ts';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import { searchChunks } from './chunks.ts';
import { chunkSearchParams, fileSearchParams, symbolSearchParams } from './params.ts';
import { resolveSyncIds } from './scope.ts';
import { chunkSearchInput, searchFiles, searchFilesNamesFirst, searchInput } from './search.ts';
import { searchSymbols } from './symbols.ts';

export function searchRoutes(router: Router, deps: GraphAppDeps): void {
  const { pool, graphTimeoutMs } = deps;

  mount(router, searchFilesByMeaning, async ({ query }) => {
    const p = fileSearchParams(query);
    // The embedding call happens before any connection is taken from the pool.
    const vector = await deps.embedder.embedOne(searchInput(p.q));
    const results = await withReadTx(pool, graphTimeoutMs, async (tx) =>
      searchFiles(tx, vector, { type: p.type, limit: p.limit, syncIds: await resolveSyncIds(tx, p.scope) }),
    );
    return { results };
  });

  mount(router, chunksRoute, async ({ query }) => {
    const started = performance.now();
    const p = chunkSearchParams(query);
    // The query is embedded before a connection is taken from the pool.
    const vector = p.mode === 'lexical' ? null : await deps.embedder.embedOne(chunkSearchInput(p.q));
    const embedded = performance.now();
    const result = await withReadTx(pool, graphTimeoutMs, (tx) => searchChunks(tx, p, vector));
    const done = performance.now();
    return {
      ...result,
      meta: {
        ...result.meta,
        mode: p.mode,
        query_ms: Math.round(done - embedded),
        embed_ms: Math.round(embedded - started),
      },
    };
  });

  mount(router, filesRoute, async ({ query }) => {
    const p = fileSearchParams(query);
    const vector = await deps.embedder.embedOne(searchInput(p.q));
    const results = await withReadTx(pool, graphTimeoutMs, async (tx) => {
      const syncIds = await resolveSyncIds(tx, p.scope);
      return searchFilesNamesFirst(tx, vector, { type: p.type, limit: p.limit, syncIds }, p.q);
    });
    return { results };
  });

  mount(router, symbolsRoute, async ({ query }) => {
    const started = performance.now();
    const p = symbolSearchParams(query);
    const result = await withReadTx(pool, graphTimeoutMs, (tx) => searchSymbols(tx, p));
    return {
      ...result,
      meta: { ...result.meta, match: p.match, query_ms: Math.round(performance.now() - started) },
    };
  });
}
