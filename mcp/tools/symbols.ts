/**
 * The symbol graph for agents (issue 28): `context` (one symbol's whole view: definition, callers, callees, type
 * hierarchy, overrides, unresolved uses and the tests that reach it) over GET /api/graph/symbol and
 * /api/graph/symbol/impact. Related symbols are rendered as one line each (`name  path:line  [provenance 0.9]
 * sites 12,14`) to spare the model's context; every list says when it is a lower bound and why.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { request, type Api } from '../../lib/api/client.ts';
import { getSymbol, getSymbolImpact, type Completeness, type RelatedSymbol } from '../../lib/api/routes/symbols.ts';
import { MAX_CHARS, textResult } from '../fit.ts';
import { safely, syncId } from './common.ts';

export const symbolArg = z
  .string()
  .min(1)
  .describe(
    'A symbol: `owner/name:<path>#<key>` or `src_<source_id>:<path>#<key>` (ids returned by search kind=symbols, ' +
      'context and impact). The key may be shortened to the name when it names one symbol of the file ' +
      '(`Router.add_route`, `add_route`).',
  );

/** One line per related symbol. */
export function relatedLine(r: RelatedSymbol): string {
  const sites = r.lines.length > 0 ? `  sites ${r.lines.join(',')}` : '';
  return `${r.key}  ${r.file_path}:${r.line}  [${r.provenance} ${r.confidence}]${sites}  id=${r.id}`;
}

export function completenessLine(c: Completeness): string {
  if (c.status === 'exact') return 'exact';
  return `lower bound (${c.reasons.map((r) => `${r.count} ${r.reason}`).join(', ')})`;
}

function section(title: string, list: RelatedSymbol[], total: number | undefined, extra = ''): string[] {
  if (list.length === 0 && !extra) return [];
  const more = total !== undefined && total > list.length ? ` (showing ${list.length} of ${total})` : '';
  return [`## ${title}: ${total ?? list.length}${more}${extra}`, ...list.map(relatedLine), ''];
}

export function registerSymbols(server: McpServer, api: Api): void {
  server.registerTool(
    'context',
    {
      title: "One symbol's whole view: definition, callers, callees, hierarchy, tests",
      description:
        'For a function, method or type: where it is defined (file, lines, signature, doc), who calls it and what ' +
        'it calls (each with how the call was resolved and how sure: provenance and confidence, and the call ' +
        'lines), its supertypes, subtypes and overrides, the calls inside it that could not be resolved, and the ' +
        'tests that reach it (callers in test files, up to test_depth calls away). Callers and callees say `exact` ' +
        'or `lower bound` with the reason. Use impact for the transitive callers.',
      inputSchema: {
        symbol: symbolArg,
        sync_id: syncId,
        limit: z.number().int().min(1).max(500).default(50).describe('Most entries per list.'),
        test_depth: z.number().int().min(1).max(10).default(4).describe('How far to look for tests.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ symbol, sync_id, limit, test_depth }) =>
      safely(async () => {
        const d = await request(api, getSymbol, { query: { symbol, sync_id, limit } });
        const reach = await request(api, getSymbolImpact, {
          query: {
            symbol: d.symbol.id,
            sync_id: d.symbol.sync_id,
            direction: 'callers',
            depth: test_depth,
            limit: 10_000,
          },
        });
        const tests = reach.items.filter((i) => i.file_type === 'test');
        const s = d.symbol;
        const c = d.counts;
        const lines = [
          `# ${s.kind} ${s.name}  ${s.file_path}:${s.line}-${s.end_line}  (${s.language})`,
          `id=${s.id}  sync=${s.sync_id}`,
          ...(s.signature ? [`signature: ${s.signature}`] : []),
          ...(s.doc ? [`doc: ${s.doc}`] : []),
          '',
          ...section('callers', d.callers, c.callers, `, ${completenessLine(d.completeness.callers)}`),
          ...section('callees', d.callees, c.callees, `, ${completenessLine(d.completeness.callees)}`),
          ...section('supertypes', d.supertypes, c.supertypes),
          ...section('subtypes', d.subtypes, c.subtypes),
          ...section('overrides', d.overrides, c.overrides),
          ...section('overridden by', d.overridden_by, c.overridden_by),
          ...section('references', d.references, c.references),
          ...section('referenced by', d.referenced_by, c.referenced_by),
          ...(d.unresolved.length > 0
            ? [
                `## unresolved uses inside it: ${d.unresolved.length}`,
                ...d.unresolved.slice(0, limit).map((u) => `${u.kind} ${u.text}  line ${u.line}  (${u.reason})`),
                '',
              ]
            : []),
          `## tests that reach it (callers in test files, up to ${test_depth} calls away): ${tests.length}` +
            (reach.completeness.status === 'exact' ? '' : ', lower bound'),
          ...tests
            .slice(0, limit)
            .map((t) => `${t.name}  ${t.file_path}:${t.line}  distance ${t.distance}  id=${t.id}`),
        ];
        let text = lines.join('\n');
        if (text.length > MAX_CHARS) {
          text = `${text.slice(0, MAX_CHARS)}\n[cut at ${MAX_CHARS} characters: call again with a smaller limit]`;
        }
        return textResult(text);
      }),
  );
}
