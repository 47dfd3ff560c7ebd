/**
 * Symbol reads (issue 28; docs/graph.md "Symbol graph reads"):
 *   GET /api/graph/symbol?symbol=        one symbol: definition (file, lines, signature, doc), callers, callees,
 *                                        supertypes, subtypes, overrides, references, unresolved uses, completeness;
 *   GET /api/graph/symbol/impact?symbol= transitive callers or callees to a depth, exact or lower bound;
 *   GET /api/graph/symbols?node_id=      the symbols of a file, with their caller and callee counts.
 * The symbol is a query parameter (as impact's node_id), so no greedy path is involved. The sync: `sync_id`, else the
 * newest completed sync of the source holding the file (as node detail).
 */
import type Router from '@koa/router';
import { NotFoundError } from '../../lib/errors.ts';
import { decodeNodeId } from '../../lib/node-id.ts';
import { mount } from '../../lib/api/route.ts';
import { getFileSymbols, getSymbol, getSymbolImpact, type SymbolDetail } from '../../lib/api/routes/symbols.ts';
import { latestSyncWithFile, requireGraph, syncById } from '../syncs/pick.ts';
import type { ReadTx } from '../db/read.ts';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import { matchKey, resolveAddress, symbolAddress } from './address.ts';
import { impactHitJson, symbolImpact, symbolJson, symbolRelations } from './read.ts';
import type { SymbolGraphCache } from './snapshot.ts';
import { type SymbolGraph } from './snapshot.ts';

const ms = (started: number) => Math.round(performance.now() - started);

interface Located {
  g: SymbolGraph;
  index: number;
  id: string;
}

async function graphOf(
  tx: ReadTx,
  cache: SymbolGraphCache,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
  what: string,
) {
  const sync = syncId ? await syncById(tx, syncId, 'sync_id') : await latestSyncWithFile(tx, sourceId, filePath);
  if (!sync) throw new NotFoundError(what, `${sourceId}:${filePath} (in any completed sync of its source)`);
  requireGraph(sync);
  if (sync.source_id !== sourceId) throw new NotFoundError(what, `src_${sourceId}:${filePath} in sync ${sync.id}`);
  return cache.get(tx, sync);
}

/** The symbol of a file's key in the sync (or the newest completed sync holding the file); undefined when none. */
export async function findSymbol(
  tx: ReadTx,
  cache: SymbolGraphCache,
  a: { sourceId: string; filePath: string; key: string },
  syncId: string | undefined,
): Promise<Located | undefined> {
  const sync = syncId ? await syncById(tx, syncId, 'sync_id') : await latestSyncWithFile(tx, a.sourceId, a.filePath);
  if (!sync || sync.source_id !== a.sourceId) return undefined;
  requireGraph(sync);
  const g = await cache.get(tx, sync);
  const file = g.fileByPath.get(a.filePath);
  const candidates = file === undefined ? [] : (g.byFile.get(file) ?? []).filter((i) => g.keys[i] !== '');
  const k = matchKey(
    candidates.map((i) => g.keys[i]!),
    a.key,
  );
  if (k === undefined) return undefined;
  const index = candidates[k]!;
  return { g, index, id: symbolAddress(g.sourceId, a.filePath, g.keys[index]!) };
}

async function locate(tx: ReadTx, cache: SymbolGraphCache, text: string, syncId: string | undefined): Promise<Located> {
  const a = await resolveAddress(tx, text);
  const found = await findSymbol(tx, cache, a, syncId);
  if (!found) {
    throw new NotFoundError(
      'symbol',
      `${text}${syncId ? ` in sync ${syncId}` : ' (in any completed sync of its source)'}`,
    );
  }
  return found;
}

export function symbolRoutes(router: Router, deps: GraphAppDeps, cache: SymbolGraphCache): void {
  const { pool, graphTimeoutMs } = deps;

  mount(router, getSymbol, async ({ query }) => {
    const started = performance.now();
    const { symbol: text, sync_id: syncId, limit } = query;
    const { at, definition, unresolved } = await withReadTx(pool, graphTimeoutMs, async (tx) => {
      const at = await locate(tx, cache, text, syncId);
      const path = at.g.filePaths[at.g.file[at.index]!]!;
      const key = at.g.keys[at.index]!;
      const def = await tx.query<{ language: string; signature: string | null; doc: string | null }>(
        {
          name: 'ckg_symbol_definition',
          text: `SELECT c.language, k.signature, k.doc
                   FROM sync_files s JOIN file_contents c ON c.id = s.content_id
                   LEFT JOIN file_content_symbols k ON k.content_id = c.id AND k.key = $3
                  WHERE s.sync_id = $1 AND s.file_path = $2
                  LIMIT 1`,
        },
        [at.g.syncId, path, key],
      );
      const un = await tx.query<{
        uses: Array<SymbolDetail['unresolved'][number] & { from: string }>;
      }>(
        {
          name: 'ckg_symbol_unresolved',
          text: `SELECT s.uses FROM sync_symbol_unresolved u JOIN symbol_unresolved_sets s ON s.hash = u.set_hash
                  WHERE u.sync_id = graph_sync_of($1) AND u.file_path = $2`,
        },
        [at.g.syncId, path],
      );
      const unresolved = (un.rows[0]?.uses ?? [])
        .filter((u) => u.from === key)
        .map(({ kind, text, line, reason }) => ({ kind, text, line, reason }));
      return { at, definition: def.rows[0], unresolved };
    });
    const { g, index } = at;
    return {
      symbol: {
        ...symbolJson(g, index),
        spec_kind: g.kinds[index] as SymbolDetail['symbol']['spec_kind'],
        language: definition?.language ?? '',
        signature: definition?.signature ?? null,
        doc: definition?.doc ?? null,
        source_id: g.sourceId,
        sync_id: g.syncId,
      },
      ...symbolRelations(g, index, limit),
      unresolved,
      query_ms: ms(started),
    };
  });

  mount(router, getSymbolImpact, async ({ query }) => {
    const started = performance.now();
    const { symbol: text, sync_id: syncId, direction, depth, limit } = query;
    const at = await withReadTx(pool, graphTimeoutMs, (tx) => locate(tx, cache, text, syncId));
    const { g, index, id } = at;
    const r = symbolImpact(g, index, direction, depth);
    const tests = r.hits.filter((h) => g.fileTypes[g.file[h.index]!] === 'test');
    return {
      symbol: symbolJson(g, index),
      sync_id: g.syncId,
      direction,
      depth,
      completeness: r.completeness,
      total: r.hits.length,
      truncated: r.hits.length > limit,
      by_distance: Object.fromEntries(r.byDistance.map((n, d) => [String(d + 1), n])),
      files: new Set(r.hits.map((h) => g.file[h.index]!)).size,
      tests: tests.length,
      items: r.hits.slice(0, limit).map((h) => impactHitJson(g, h, id)),
      query_ms: ms(started),
    };
  });

  mount(router, getFileSymbols, async ({ query }) => {
    const started = performance.now();
    const { node_id: nodeId, sync_id: syncId } = query;
    const { sourceId, filePath } = decodeNodeId(nodeId);
    const g = await withReadTx(pool, graphTimeoutMs, (tx) => graphOf(tx, cache, sourceId, filePath, syncId, 'node'));
    const file = g.fileByPath.get(filePath);
    if (file === undefined) throw new NotFoundError('node', `${nodeId} in sync ${g.syncId}`);
    const items = (g.byFile.get(file) ?? []).map((i) => ({
      ...symbolJson(g, i),
      spec_kind: g.kinds[i]!,
      callers: g.in[i]!.filter((e) => e.label === 'calls').length,
      callees: g.out[i]!.filter((e) => e.label === 'calls').length,
    }));
    return { node_id: nodeId, sync_id: g.syncId, items, query_ms: ms(started) };
  });
}
