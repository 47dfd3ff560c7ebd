/**
 * The symbol graph's reads (issue 28; docs/graph.md "Symbol graph reads"), declared once (lib/api/route.ts): one
 * symbol's detail, a symbol's impact and the symbols of a file. The graph component mounts them
 * (graph-api/symbols/routes.ts); its document and the client's types derive from these.
 */
import { z } from 'zod';
import { queryEnum, queryString } from '../../validate.ts';
import { param, query } from '../fields.ts';
import { route } from '../route.ts';
import { errorReply, GRAPH_CLEANED, READ_TIMEOUT } from './errors.ts';
import { uuid } from '../schemas.ts';

const E400 = errorReply('INVALID_ARGUMENT: `error.field` names the parameter (a key naming several symbols too).');
const E404 = errorReply('NOT_FOUND: the source, the sync, the file or the symbol does not exist.');

export const IMPACT_DIRECTIONS = ['callers', 'callees'] as const;
export type ImpactDirection = (typeof IMPACT_DIRECTIONS)[number];
export const SYMBOL_IMPACT_DEPTH = { default: 3, min: 1, max: 10 } as const;
export const SYMBOL_IMPACT_LIMIT = { default: 500, min: 1, max: 10_000 } as const;
export const RELATED_LIMIT = { default: 200, min: 1, max: 5_000 } as const;

const symbolQuery = () =>
  param(
    {
      schema: { type: 'string' },
      description:
        'The symbol: `src_<source_id>:<file_path>#<key>` or `owner/name:<file_path>#<key>`. The key is the stable ' +
        'key (`Router.add_route:method`); a shorter form naming one symbol of the file is accepted ' +
        '(`Router.add_route`, `add_route`). The address splits at its last `#`.',
      required: true,
    },
    (q, n) => queryString(q, n, { required: true, maxLength: 8192 })!,
  );
const syncQuery = () =>
  query.uuid('The sync to read. Default: the newest completed sync of the source that contains the file.');

// ---------------------------------------------------------------------------------------------------- responses

export const SymbolRef = z
  .object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    kind: z.string().describe('The finer kind: function, method, constructor, class, interface, …'),
    file_path: z.string(),
    node_id: z.string(),
    line: z.int(),
    end_line: z.int(),
  })
  .describe('A symbol. `id` is its address (use it as `symbol`); `node_id` is its file node.')
  .meta({ id: 'SymbolRef' });
export type SymbolRef = z.infer<typeof SymbolRef>;

export const REL_TYPES = ['calls', 'inherits', 'implements', 'overrides', 'references'] as const;

export const RelatedSymbol = SymbolRef.extend({
  rel_type: z.enum(REL_TYPES),
  provenance: z
    .string()
    .describe('How it was resolved: scip, scope, import, qualified, self, receiver_type, hierarchy, unique_name.'),
  confidence: z.number().min(0).max(1),
  lines: z.array(z.int()).describe("Call or reference sites: lines in the calling (referring) symbol's file."),
  count: z.int().describe('Number of sites (two calls on one line count twice).'),
}).meta({ id: 'RelatedSymbol' });
export type RelatedSymbol = z.infer<typeof RelatedSymbol>;

export const Completeness = z
  .object({
    status: z.enum(['exact', 'lower_bound']),
    reasons: z.array(z.object({ reason: z.string(), count: z.int(), detail: z.string() })),
  })
  .describe(
    '`exact` when nothing the graph cannot see could add to the list; else `lower_bound` with the reasons: ' +
      'unresolved_calls (uses not resolved; for callers: with the same name), ambiguous_calls, dynamic_receiver, ' +
      'reflection (getattr, eval, computed members), dynamic_dispatch (overridden methods), no_symbol_graph (the ' +
      'sync was made with `symbol_graph: false`).',
  )
  .meta({ id: 'Completeness' });
export type Completeness = z.infer<typeof Completeness>;

const related = () => z.array(RelatedSymbol);

/** The relations of a symbol (graph-api/symbols/read.ts symbolRelations). */
export const SymbolRelations = z.object({
  callers: related(),
  callees: related(),
  supertypes: related(),
  subtypes: related(),
  overrides: related(),
  overridden_by: related(),
  references: related(),
  referenced_by: related(),
  counts: z.record(z.string(), z.int()),
  truncated: z.boolean(),
  completeness: z.object({ callers: Completeness, callees: Completeness }),
});
export type SymbolRelations = z.infer<typeof SymbolRelations>;

export const SymbolDetail = SymbolRelations.extend({
  symbol: SymbolRef.extend({
    spec_kind: z.enum(['function', 'class', 'method']),
    language: z.string(),
    signature: z.string().nullable(),
    doc: z.string().nullable(),
    source_id: uuid(),
    sync_id: uuid(),
  }),
  unresolved: z
    .array(
      z.object({
        kind: z.enum(['call', 'reference', 'supertype']),
        text: z.string(),
        line: z.int(),
        reason: z.enum(['unknown_name', 'dynamic_receiver', 'ambiguous', 'dynamic']),
      }),
    )
    .describe('Uses inside the symbol that were not resolved (not guessed).'),
  query_ms: z.int(),
}).meta({ id: 'SymbolDetail' });
export type SymbolDetail = z.infer<typeof SymbolDetail>;

export const SymbolImpactHit = SymbolRef.extend({
  file_type: z.string(),
  distance: z.int(),
  via: z.string().describe('The symbol one step closer to the start.'),
  provenance: z.string(),
  confidence: z.number(),
  lines: z.array(z.int()),
});
export type SymbolImpactHit = z.infer<typeof SymbolImpactHit>;

export const SymbolImpact = z
  .object({
    symbol: SymbolRef,
    sync_id: uuid(),
    direction: z.enum(IMPACT_DIRECTIONS),
    depth: z.int(),
    completeness: Completeness,
    total: z.int(),
    truncated: z.boolean(),
    by_distance: z.record(z.string(), z.int()),
    files: z.int().describe('Distinct files of the symbols reached.'),
    tests: z.int().describe('Symbols reached that live in test files.'),
    items: z.array(SymbolImpactHit),
    query_ms: z.int(),
  })
  .meta({ id: 'SymbolImpact' });
export type SymbolImpact = z.infer<typeof SymbolImpact>;

export const FileSymbols = z
  .object({
    node_id: z.string(),
    sync_id: uuid(),
    items: z.array(SymbolRef.extend({ spec_kind: z.string(), callers: z.int(), callees: z.int() })),
    query_ms: z.int(),
  })
  .meta({ id: 'FileSymbols' });
export type FileSymbols = z.infer<typeof FileSymbols>;

// ------------------------------------------------------------------------------------------------------- routes

export const getSymbol = route({
  method: 'GET',
  path: '/api/graph/symbol',
  summary: "A symbol's detail: definition, callers, callees, type hierarchy, overrides, references",
  description:
    'The definition (file, lines, signature, doc comment) and every relation of the symbol graph in one sync, ' +
    'each related symbol with the edge’s provenance, confidence and sites. Lists are sorted by file and line ' +
    'and cut at `limit` (counts are complete). `completeness` says whether callers and callees are exact or a ' +
    'lower bound, and why; `unresolved` lists the uses inside the symbol that were not resolved. A cleaned ' +
    'sync: 409.',
  query: { symbol: symbolQuery(), sync_id: syncQuery(), limit: query.int('Most entries per list.', RELATED_LIMIT) },
  success: { status: 200, description: 'The symbol', schema: SymbolDetail },
  responses: { 400: E400, 404: E404, 409: GRAPH_CLEANED, 504: READ_TIMEOUT },
});

export const getSymbolImpact = route({
  method: 'GET',
  path: '/api/graph/symbol/impact',
  summary: 'Impact of a symbol: its transitive callers (or callees)',
  description:
    'Breadth first over the calls edges of one sync: `callers` against them, `callees` along them, up to ' +
    '`depth`. Each symbol reached is listed once at its shortest distance with `via` (one step closer to the ' +
    'start) and the edge that reached it. `completeness` is `exact` or `lower_bound` with the reasons, taken ' +
    'over every symbol whose callers (callees) were followed.',
  query: {
    symbol: symbolQuery(),
    sync_id: syncQuery(),
    direction: param(
      { schema: { enum: IMPACT_DIRECTIONS, default: 'callers' }, description: 'Walk direction.' },
      (q, n): ImpactDirection => queryEnum(q, n, IMPACT_DIRECTIONS) ?? 'callers',
    ),
    depth: query.int('Largest distance.', SYMBOL_IMPACT_DEPTH),
    limit: query.int('Most items returned.', SYMBOL_IMPACT_LIMIT),
  },
  success: { status: 200, description: 'The symbols reached', schema: SymbolImpact },
  responses: { 400: E400, 404: E404, 409: GRAPH_CLEANED, 504: READ_TIMEOUT },
});

export const getFileSymbols = route({
  method: 'GET',
  path: '/api/graph/symbols',
  summary: 'The symbols of a file',
  description: 'In line order, each with its address and its numbers of callers and callees.',
  query: {
    node_id: query.nodeId('`src_<source_id>:<file_path>`.'),
    sync_id: syncQuery(),
  },
  success: { status: 200, description: 'The symbols', schema: FileSymbols },
  responses: { 400: E400, 404: E404, 409: GRAPH_CLEANED, 504: READ_TIMEOUT },
});

export const SYMBOL_ROUTES = [getSymbol, getSymbolImpact, getFileSymbols] as const;
