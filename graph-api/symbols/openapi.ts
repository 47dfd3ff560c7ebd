/** OpenAPI paths and schemas of the symbol graph's reads (issue 28), spread into the graph component's document. */
import { errorResponse, json, queryParam, ref, uuid } from '../../lib/openapi.ts';
import { RELATED_LIMIT, SYMBOL_IMPACT_DEPTH, SYMBOL_IMPACT_LIMIT } from './read.ts';

const E400 = errorResponse('INVALID_ARGUMENT: `error.field` names the parameter (a key naming several symbols too).');
const E404 = errorResponse('NOT_FOUND: the source, the sync, the file or the symbol does not exist.');
const E409 = errorResponse('FAILED_PRECONDITION: the sync was cleaned, its graph is gone.');
const E504 = errorResponse('TIMEOUT: the read exceeded GRAPH_QUERY_TIMEOUT_SECONDS.');
const ok = (description: string, schema: unknown) => ({ description, content: json(schema) });

const symbolParam = queryParam(
  'symbol',
  { type: 'string' },
  'The symbol: `src_<source_id>:<file_path>#<key>` or `owner/name:<file_path>#<key>`. The key is the stable key ' +
    '(`Router.add_route:method`); a shorter form naming one symbol of the file is accepted (`Router.add_route`, ' +
    '`add_route`). The address splits at its last `#`.',
  true,
);
const syncParam = queryParam(
  'sync_id',
  uuid,
  'The sync to read. Default: the newest completed sync of the source that contains the file.',
);

const symbolRef = {
  type: 'object',
  description: 'A symbol. `id` is its address (use it as `symbol`); `node_id` is its file node.',
  properties: {
    id: { type: 'string' },
    key: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string', description: 'The finer kind: function, method, constructor, class, interface, …' },
    file_path: { type: 'string' },
    node_id: { type: 'string' },
    line: { type: 'integer' },
    end_line: { type: 'integer' },
  },
};
const related = {
  allOf: [
    ref('SymbolRef'),
    {
      type: 'object',
      properties: {
        rel_type: { enum: ['calls', 'inherits', 'implements', 'overrides', 'references'] },
        provenance: {
          type: 'string',
          description:
            'How it was resolved: scip, scope, import, qualified, self, receiver_type, hierarchy, unique_name.',
        },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        lines: {
          type: 'array',
          items: { type: 'integer' },
          description: "Call or reference sites: lines in the calling (referring) symbol's file.",
        },
        count: { type: 'integer', description: 'Number of sites (two calls on one line count twice).' },
      },
    },
  ],
};
const completeness = {
  type: 'object',
  description:
    '`exact` when nothing the graph cannot see could add to the list; else `lower_bound` with the reasons: ' +
    'unresolved_calls (uses not resolved; for callers: with the same name), ambiguous_calls, dynamic_receiver, ' +
    'reflection (getattr, eval, computed members), dynamic_dispatch (overridden methods), no_symbol_graph (the ' +
    'sync was made with `symbol_graph: false`).',
  properties: {
    status: { enum: ['exact', 'lower_bound'] },
    reasons: {
      type: 'array',
      items: {
        type: 'object',
        properties: { reason: { type: 'string' }, count: { type: 'integer' }, detail: { type: 'string' } },
      },
    },
  },
};
const list = { type: 'array', items: ref('RelatedSymbol') };

export const symbolSchemas = {
  SymbolRef: symbolRef,
  RelatedSymbol: related,
  Completeness: completeness,
  SymbolDetail: {
    type: 'object',
    properties: {
      symbol: {
        allOf: [
          ref('SymbolRef'),
          {
            type: 'object',
            properties: {
              spec_kind: { enum: ['function', 'class', 'method'] },
              language: { type: 'string' },
              signature: { type: ['string', 'null'] },
              doc: { type: ['string', 'null'] },
              source_id: uuid,
              sync_id: uuid,
            },
          },
        ],
      },
      callers: list,
      callees: list,
      supertypes: list,
      subtypes: list,
      overrides: list,
      overridden_by: list,
      references: list,
      referenced_by: list,
      counts: { type: 'object', additionalProperties: { type: 'integer' } },
      truncated: { type: 'boolean' },
      completeness: {
        type: 'object',
        properties: { callers: ref('Completeness'), callees: ref('Completeness') },
      },
      unresolved: {
        type: 'array',
        description: 'Uses inside the symbol that were not resolved (not guessed).',
        items: {
          type: 'object',
          properties: {
            kind: { enum: ['call', 'reference', 'supertype'] },
            text: { type: 'string' },
            line: { type: 'integer' },
            reason: { enum: ['unknown_name', 'dynamic_receiver', 'ambiguous', 'dynamic'] },
          },
        },
      },
      query_ms: { type: 'integer' },
    },
  },
  SymbolImpact: {
    type: 'object',
    properties: {
      symbol: ref('SymbolRef'),
      sync_id: uuid,
      direction: { enum: ['callers', 'callees'] },
      depth: { type: 'integer' },
      completeness: ref('Completeness'),
      total: { type: 'integer' },
      truncated: { type: 'boolean' },
      by_distance: { type: 'object', additionalProperties: { type: 'integer' } },
      files: { type: 'integer', description: 'Distinct files of the symbols reached.' },
      tests: { type: 'integer', description: 'Symbols reached that live in test files.' },
      items: {
        type: 'array',
        items: {
          allOf: [
            ref('SymbolRef'),
            {
              type: 'object',
              properties: {
                file_type: { type: 'string' },
                distance: { type: 'integer' },
                via: { type: 'string', description: 'The symbol one step closer to the start.' },
                provenance: { type: 'string' },
                confidence: { type: 'number' },
                lines: { type: 'array', items: { type: 'integer' } },
              },
            },
          ],
        },
      },
      query_ms: { type: 'integer' },
    },
  },
  FileSymbols: {
    type: 'object',
    properties: {
      node_id: { type: 'string' },
      sync_id: uuid,
      items: {
        type: 'array',
        items: {
          allOf: [
            ref('SymbolRef'),
            {
              type: 'object',
              properties: {
                spec_kind: { type: 'string' },
                callers: { type: 'integer' },
                callees: { type: 'integer' },
              },
            },
          ],
        },
      },
      query_ms: { type: 'integer' },
    },
  },
};

export const symbolPaths = {
  '/api/graph/symbol': {
    get: {
      summary: "A symbol's detail: definition, callers, callees, type hierarchy, overrides, references",
      description:
        'The definition (file, lines, signature, doc comment) and every relation of the symbol graph in one sync, ' +
        'each related symbol with the edge’s provenance, confidence and sites. Lists are sorted by file and line ' +
        'and cut at `limit` (counts are complete). `completeness` says whether callers and callees are exact or a ' +
        'lower bound, and why; `unresolved` lists the uses inside the symbol that were not resolved. A cleaned ' +
        'sync: 409.',
      parameters: [
        symbolParam,
        syncParam,
        queryParam('limit', { type: 'integer', ...RELATED_LIMIT }, 'Most entries per list.'),
      ],
      responses: { 200: ok('The symbol', ref('SymbolDetail')), 400: E400, 404: E404, 409: E409, 504: E504 },
    },
  },
  '/api/graph/symbol/impact': {
    get: {
      summary: 'Impact of a symbol: its transitive callers (or callees)',
      description:
        'Breadth first over the calls edges of one sync: `callers` against them, `callees` along them, up to ' +
        '`depth`. Each symbol reached is listed once at its shortest distance with `via` (one step closer to the ' +
        'start) and the edge that reached it. `completeness` is `exact` or `lower_bound` with the reasons, taken ' +
        'over every symbol whose callers (callees) were followed.',
      parameters: [
        symbolParam,
        queryParam('direction', { enum: ['callers', 'callees'], default: 'callers' }, 'Walk direction.'),
        queryParam('depth', { type: 'integer', ...SYMBOL_IMPACT_DEPTH }, 'Largest distance.'),
        queryParam('limit', { type: 'integer', ...SYMBOL_IMPACT_LIMIT }, 'Most items returned.'),
        syncParam,
      ],
      responses: { 200: ok('The symbols reached', ref('SymbolImpact')), 400: E400, 404: E404, 409: E409, 504: E504 },
    },
  },
  '/api/graph/symbols': {
    get: {
      summary: 'The symbols of a file',
      description: 'In line order, each with its address and its numbers of callers and callees.',
      parameters: [queryParam('node_id', { type: 'string' }, '`src_<source_id>:<file_path>`.', true), syncParam],
      responses: { 200: ok('The symbols', ref('FileSymbols')), 400: E400, 404: E404, 409: E409, 504: E504 },
    },
  },
};
