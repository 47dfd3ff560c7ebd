/**
 * impact (GET /api/graph/impact for a file, GET /api/graph/symbol/impact for a symbol), diff and pr_report
 * (GET /api/graph/diff, /pr), rendered with paths to spare the model's context.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { request, type Api } from '../../lib/api/client.ts';
import { getDiff, getImpact, getPrReport } from '../../lib/api/routes/graph.ts';
import { getSymbolImpact } from '../../lib/api/routes/symbols.ts';
import { errorResult, fitList, MAX_CHARS, textResult } from '../fit.ts';
import { nodeId, offset, safely, syncId } from './common.ts';
import { completenessLine, symbolArg } from './symbols.ts';

/** The path part of a node id (`src_<uuid>:` is 41 characters). */
const pathOf = (id: string) => id.slice(41);

export function registerAnalysis(server: McpServer, api: Api): void {
  server.registerTool(
    'impact',
    {
      title: 'What a change to a file or a symbol affects',
      description:
        'For a file (node_id): direction=dependents (default): the files that depend on it, directly (distance 1) ' +
        'or transitively up to depth; direction=dependencies: what the file depends on. For a symbol (symbol): ' +
        'direction=callers (default): the functions and methods that call it, transitively; direction=callees: ' +
        'what it calls. Each answer once, with its shortest distance and `via` (one step closer on a shortest ' +
        'path); for symbols, how the call was resolved and whether the answer is exact or a lower bound (and why). ' +
        'Paths are of the same source as the start: its node ids are `src_<source_id>:<path>`.',
      inputSchema: {
        node_id: nodeId.optional(),
        symbol: symbolArg.optional(),
        direction: z
          .enum(['dependents', 'dependencies', 'callers', 'callees'])
          .optional()
          .describe('dependents | dependencies for a file (default dependents), callers | callees for a symbol.'),
        depth: z.number().int().min(1).max(10).default(3),
        sync_id: syncId,
        offset,
        limit: z.number().int().min(1).max(1000).default(200),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ node_id, symbol, direction, depth, sync_id, offset, limit }) =>
      safely(async () => {
        if ((node_id === undefined) === (symbol === undefined)) {
          return errorResult('give exactly one of node_id (a file) and symbol (a function, method or type)');
        }
        if (symbol !== undefined) {
          if (direction === 'dependents' || direction === 'dependencies') {
            return errorResult(`direction ${direction} is for files; a symbol takes callers or callees`);
          }
          const a = await request(api, getSymbolImpact, {
            query: {
              symbol,
              direction: direction ?? 'callers',
              depth,
              sync_id,
              limit: Math.min(offset + limit, 10_000),
            },
          });
          const items = a.items.slice(offset).map((i) => ({
            symbol: i.id,
            kind: i.kind,
            at: `${i.file_path}:${i.line}`,
            distance: i.distance,
            via: i.distance > 1 ? i.via : undefined,
            resolved: `${i.provenance} ${i.confidence}`,
            ...(i.file_type === 'test' ? { test: true } : {}),
          }));
          return fitList(
            {
              symbol: a.symbol.id,
              sync_id: a.sync_id,
              direction: a.direction,
              depth,
              answer: completenessLine(a.completeness),
              total: a.total,
              files: a.files,
              tests: a.tests,
              by_distance: a.by_distance,
            },
            'symbols',
            items,
            { offset, total: a.total },
          );
        }
        if (direction === 'callers' || direction === 'callees') {
          return errorResult(`direction ${direction} is for symbols; a file takes dependents or dependencies`);
        }
        const a = await request(api, getImpact, {
          query: { node_id, direction, depth, sync_id, limit: Math.min(offset + limit, 10_000) },
        });
        const items = a.items.slice(offset).map((i) => ({
          path: i.file_path,
          type: i.type,
          distance: i.distance,
          via: i.distance > 1 ? pathOf(i.via) : undefined,
        }));
        return fitList(
          {
            node_id: a.node_id,
            sync_id: a.sync_id,
            direction: a.direction,
            depth,
            total: a.total,
            by_distance: a.by_distance,
          },
          'files',
          items,
          { offset, total: a.total },
        );
      }),
  );

  server.registerTool(
    'diff',
    {
      title: 'What changed between two syncs of a source',
      description:
        'Files added, removed and changed (content hash) and depends_on edges added and removed (`a -> b`: a ' +
        'imports b). Defaults: to = the newest completed sync, from = the completed sync before it; give source_id ' +
        'or a sync id.',
      inputSchema: {
        source_id: z.string().uuid().optional(),
        from: z.string().uuid().optional().describe('The older sync.'),
        to: z.string().uuid().optional().describe('The newer sync.'),
        limit: z.number().int().min(1).max(2000).default(200).describe('Most entries per list.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ source_id, from, to, limit }) =>
      safely(async () => {
        const d = await request(api, getDiff, { query: { source_id, from, to, limit } });
        // Halve the lists until the answer fits; the counts stay complete and a note says so.
        for (let n = limit; ; n = Math.floor(n / 2)) {
          const cut = <T>(xs: T[]) => xs.slice(0, n);
          const shown = {
            source_id: d.source_id,
            from: d.from,
            to: d.to,
            counts: d.counts,
            files_added: cut(d.files.added).map((f) => f.file_path),
            files_removed: cut(d.files.removed).map((f) => f.file_path),
            files_changed: cut(d.files.changed).map((f) => f.file_path),
            edges_added: cut(d.edges.added).map((e) => `${pathOf(e.source)} -> ${pathOf(e.target)}`),
            edges_removed: cut(d.edges.removed).map((e) => `${pathOf(e.source)} -> ${pathOf(e.target)}`),
          };
          const c = d.counts;
          const biggest = Math.max(c.added, c.removed, c.changed, c.edges_added, c.edges_removed);
          const note =
            biggest > n
              ? `each list shows at most ${n} entries (the counts are complete); the REST read GET /api/graph/diff has them all`
              : undefined;
          const text = JSON.stringify(note ? { ...shown, note } : shown, null, 1);
          if (text.length <= MAX_CHARS || n <= 1) return textResult(text.slice(0, MAX_CHARS));
        }
      }),
  );
}

/** pr_report: a pull/merge request's report (GET /api/graph/pr). */
export function registerPrReport(server: McpServer, api: Api): void {
  server.registerTool(
    'pr_report',
    {
      title: 'What a pull/merge request changes, riskiest first',
      description:
        'Compares the request’s newest synced head (synced from a code-host webhook) with its base branch: files ' +
        'added, removed and changed, ranked riskiest first (how many files depend on each, transitively to depth ' +
        '3, then symbols removed or changed), each with its symbols added/removed/changed; the files impacted ' +
        'without being touched; depends_on edges added and removed. Give sync_id, or source_id and number.',
      inputSchema: {
        source_id: z.string().uuid().optional(),
        number: z.number().int().min(1).optional().describe('The pull/merge request number (with source_id).'),
        sync_id: syncId,
        limit: z.number().int().min(1).max(1000).default(50).describe('Most entries per list.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ source_id, number, sync_id, limit }) =>
      safely(async () => {
        const r = await request(api, getPrReport, { query: { source_id, number, sync_id, limit } });
        const names = (xs: Array<{ name: string }>) => xs.map((s) => s.name);
        const files = r.files.map((f) => ({
          path: f.file_path,
          change: f.change,
          risk: f.risk,
          dependents: f.dependents,
          symbols_added: names(f.symbols.added),
          symbols_removed: names(f.symbols.removed),
          symbols_changed: names(f.symbols.changed),
        }));
        return fitList(
          {
            pr: r.pr,
            head_sync_id: r.head.sync_id,
            base_sync_id: r.base.sync_id,
            counts: r.counts,
            impacted: r.impacted.map((h) => `${h.file_path} (distance ${h.distance})`),
            edges_added: r.edges.added.map((e) => `${pathOf(e.source)} -> ${pathOf(e.target)}`),
            edges_removed: r.edges.removed.map((e) => `${pathOf(e.source)} -> ${pathOf(e.target)}`),
          },
          'files',
          files,
          { offset: 0, total: r.counts.files_added + r.counts.files_removed + r.counts.files_changed },
        );
      }),
  );
}
