/**
 * The graph component's OpenAPI 3.1 document, served at GET /openapi.json (the gateway merges the components'
 * documents at /docs). Decisions where the spec says "not shown" are written into the descriptions. The error body,
 * Sync, Schedule, Health, pages and their parameters come from lib/openapi.ts (shared by every component).
 */
import { errorResponse, json, queryParam, ref, sharedSchemas, uuid } from '../lib/openapi.ts';
import { pathsOf } from '../lib/api/openapi.ts';
import { NODE_ROUTES } from '../lib/api/routes/nodes.ts';
import { listSchedules } from '../lib/api/routes/schedules.ts';
import { SOURCE_ROUTES } from '../lib/api/routes/sources.ts';
import { SYNC_READS } from '../lib/api/routes/syncs.ts';
import { searchPaths, searchSchemas } from './search/openapi.ts';
import { symbolPaths, symbolSchemas } from './symbols/openapi.ts';

const ok = (description: string, schema: unknown) => ({ description, content: json(schema) });
const syncIdParam = queryParam(
  'sync_id',
  uuid,
  'The sync to read. Default: the newest completed sync (by created_at) of the source that contains the file.',
);
const E400 = errorResponse('INVALID_ARGUMENT: `error.field` names the parameter.');
const E404 = errorResponse('NOT_FOUND');
const E409 = errorResponse('FAILED_PRECONDITION: the sync was cleaned, its graph is gone.');
const E504 = errorResponse('TIMEOUT: the read exceeded GRAPH_QUERY_TIMEOUT_SECONDS.');

/** The operations not declared as routes yet (lib/api/routes/): written by hand. */
const HAND_WRITTEN_PATHS = {
  '/openapi.json': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1' } } } },
  '/health': {
    get: {
      summary: 'Liveness',
      responses: { 200: ok('ok', ref('Health')) },
    },
  },
  '/api/graph': {
    get: {
      summary: 'Merged graph of several syncs',
      description:
        'One node per (source_id, file_path) over the requested syncs, fields from the newest requested sync ' +
        '(created_at) containing it. loaded_sync_ids: the requested syncs containing it, newest first. divergent: ' +
        'their content_hash values differ. Edges: the depends_on edges of the requested syncs, one per (source, ' +
        'target): weight = sum of the per-sync weights, weight_max = the largest. A cleaned sync contributes ' +
        'nothing (its graph is gone). Unknown ids: 404 with details.unknown_sync_ids. The body is compressed ' +
        '(Content-Encoding br or gzip) when Accept-Encoding allows it, and sent as is otherwise; `Vary: ' +
        'Accept-Encoding`. The JSON is the same either way.',
      parameters: [queryParam('sync_ids', { type: 'string' }, 'Comma-separated sync UUIDs (at most 50).', true)],
      responses: { 200: ok('The merged graph', ref('Graph')), 400: E400, 404: E404, 504: E504 },
    },
  },
  '/api/graph/impact': {
    get: {
      summary: 'Impact of a file: what depends on it (or what it depends on), transitively',
      description:
        'A breadth-first walk over the depends_on edges of one sync from the file: `dependents` follows edges ' +
        'backwards (the files that import it, then theirs, ...), `dependencies` forwards. Each file reached is ' +
        'listed once with its shortest distance (1 = direct) and `via`, the file one step closer to the start on a ' +
        'shortest path (the start itself at distance 1). Sorted by distance, then path. `total` counts every file ' +
        'reached; items stop at `limit` (then truncated=true). by_distance: files per distance. A cleaned sync: ' +
        '409 FAILED_PRECONDITION. Beside /api/graph/nodes/{node_id} on purpose: the node id is a query parameter.',
      parameters: [
        queryParam('node_id', { type: 'string' }, '`src_<source_id>:<file_path>`.', true),
        queryParam('direction', { enum: ['dependents', 'dependencies'], default: 'dependents' }, 'Walk direction.'),
        queryParam('depth', { type: 'integer', minimum: 1, maximum: 10, default: 3 }, 'Largest distance.'),
        queryParam('limit', { type: 'integer', minimum: 1, maximum: 10000, default: 500 }, 'Most items returned.'),
        syncIdParam,
      ],
      responses: { 200: ok('The files reached', ref('Impact')), 400: E400, 404: E404, 409: E409, 504: E504 },
    },
  },
  '/api/graph/diff': {
    get: {
      summary: 'What changed between two syncs of a source',
      description:
        'files.added / removed: paths only in `to` / only in `from`; files.changed: in both with a different ' +
        'content_hash. edges: depends_on edges (by the paths of their ends) only in `to` (added) or only in ' +
        '`from` (removed). Defaults: `to` = the source’s newest completed sync, `from` = its newest completed sync ' +
        'created before `to`; at least one of source_id, from, to is needed. Both syncs must belong to one source ' +
        '(400 naming the parameter otherwise). Each list stops at `limit` (truncated=true); counts are complete. ' +
        'Lists are sorted by path. A cleaned sync: 409 FAILED_PRECONDITION.',
      parameters: [
        queryParam('source_id', uuid, 'The source (needed when neither from nor to is given).'),
        queryParam('from', uuid, 'The older sync.'),
        queryParam('to', uuid, 'The newer sync.'),
        queryParam('limit', { type: 'integer', minimum: 1, maximum: 20000, default: 1000 }, 'Most items per list.'),
      ],
      responses: { 200: ok('The difference', ref('Diff')), 400: E400, 404: E404, 409: E409, 504: E504 },
    },
  },
  '/api/graph/pr': {
    get: {
      summary: 'What a pull/merge request changes, riskiest first',
      description:
        'Compares the request’s newest completed sync (started by a code-host webhook: docs/webhooks.md) with ' +
        'the newest completed sync of its base branch (any branch sync when the base has none: ' +
        'base.ref_matched=false). files: every added, removed and changed file with its symbols added, removed ' +
        'and changed (a symbol is changed when the chunks holding it differ), its dependents (direct, and total ' +
        'to depth 3) and a `detail` link to its node detail in the sync that holds it; sorted by risk (dependents ' +
        '+ symbols removed or changed). impacted: the files that depend on a touched file and are not touched ' +
        'themselves, nearest first. edges: depends_on edges added and removed. Give sync_id, or source_id and ' +
        'number. 409 when that sync is not completed or the base sync was cleaned.',
      parameters: [
        queryParam('sync_id', uuid, 'A pull request sync.'),
        queryParam('source_id', uuid, 'The source (with number).'),
        queryParam('number', { type: 'integer', minimum: 1 }, 'The pull/merge request number (with source_id).'),
        queryParam('limit', { type: 'integer', minimum: 1, maximum: 5000, default: 200 }, 'Most items per list.'),
      ],
      responses: { 200: ok('The report', { type: 'object' }), 400: E400, 404: E404, 409: E409, 504: E504 },
    },
  },
  '/api/graph/stats': {
    get: {
      summary: 'Platform-wide counts',
      description:
        'nodes_by_type and total_nodes count file records (of every sync); total_edges counts every edge of the ' +
        'graph (all labels), edges_by_label splits it.',
      responses: { 200: ok('Counts', ref('Stats')), 504: E504 },
    },
  },
  '/api/graph/search': {
    get: {
      summary: 'Semantic search over files',
      description:
        "q is embedded as `search_query: <q>` (cut to 1400 characters). Searched: each source's newest completed " +
        "sync (or source_id's, or the sync_ids named). Approximate nearest neighbours (HNSW, cosine), returned in " +
        'ascending exact cosine distance. /api/graph/search/files puts the files the query names first.',
      parameters: [
        queryParam('source_id', { type: 'string', format: 'uuid' }, "Only this source's newest completed sync."),
        queryParam('sync_ids', { type: 'string' }, 'Comma-separated sync ids (at most 50) to search, any status.'),
        queryParam('q', { type: 'string', maxLength: 2000 }, 'The query.', true),
        queryParam(
          'type',
          { enum: ['source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service'] },
          'Only files of this type.',
        ),
        queryParam('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'How many results.'),
      ],
      responses: {
        200: ok('Results', ref('SearchResults')),
        400: E400,
        503: errorResponse('UPSTREAM_UNAVAILABLE: the embedding endpoint failed'),
        504: E504,
      },
    },
  },
  ...searchPaths,
  ...symbolPaths,
};

const schemas: Record<string, unknown> = {
  ...searchSchemas,
  ...symbolSchemas,
  ...sharedSchemas,
  Graph: {
    type: 'object',
    properties: {
      nodes: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            data: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                domain: { type: 'string' },
                source_id: uuid,
                file_path: { type: 'string' },
                loaded_sync_ids: { type: 'array', items: uuid },
                latest_sync_id: uuid,
                divergent: { type: 'boolean' },
              },
            },
          },
        },
      },
      edges: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            data: {
              type: 'object',
              properties: {
                source: { type: 'string' },
                target: { type: 'string' },
                label: { const: 'depends_on' },
                weight: { type: 'number' },
                weight_max: { type: 'number' },
                loaded_sync_ids: { type: 'array', items: uuid },
              },
            },
          },
        },
      },
      meta: {
        type: 'object',
        properties: {
          node_count: { type: 'integer' },
          edge_count: { type: 'integer' },
          sync_count: { type: 'integer' },
          query_ms: { type: 'integer' },
        },
      },
    },
  },
  Stats: {
    type: 'object',
    properties: {
      nodes_by_type: { type: 'object', additionalProperties: { type: 'integer' } },
      total_nodes: { type: 'integer' },
      total_edges: { type: 'integer' },
      edges_by_label: { type: 'object', additionalProperties: { type: 'integer' } },
    },
  },
  Impact: {
    type: 'object',
    required: ['node_id', 'sync_id', 'direction', 'depth', 'total', 'truncated', 'by_distance', 'items'],
    properties: {
      node_id: { type: 'string' },
      sync_id: uuid,
      direction: { enum: ['dependents', 'dependencies'] },
      depth: { type: 'integer' },
      total: { type: 'integer' },
      truncated: { type: 'boolean' },
      by_distance: { type: 'object', additionalProperties: { type: 'integer' } },
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            node_id: { type: 'string' },
            file_path: { type: 'string' },
            name: { type: 'string' },
            type: { type: 'string' },
            distance: { type: 'integer', minimum: 1 },
            via: { type: 'string' },
          },
        },
      },
      query_ms: { type: 'integer' },
    },
  },
  Diff: {
    type: 'object',
    required: ['source_id', 'from', 'to', 'counts', 'truncated', 'files', 'edges'],
    properties: {
      source_id: uuid,
      from: ref('SyncRef'),
      to: ref('SyncRef'),
      counts: {
        type: 'object',
        properties: Object.fromEntries(
          ['added', 'removed', 'changed', 'unchanged', 'edges_added', 'edges_removed'].map((k) => [
            k,
            { type: 'integer' },
          ]),
        ),
      },
      truncated: { type: 'boolean' },
      files: {
        type: 'object',
        properties: {
          added: { type: 'array', items: ref('DiffFile') },
          removed: { type: 'array', items: ref('DiffFile') },
          changed: { type: 'array', items: ref('DiffFile') },
        },
      },
      edges: {
        type: 'object',
        properties: {
          added: { type: 'array', items: ref('DiffEdge') },
          removed: { type: 'array', items: ref('DiffEdge') },
        },
      },
      query_ms: { type: 'integer' },
    },
  },
  SyncRef: {
    type: 'object',
    properties: { id: uuid, status: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } },
  },
  DiffFile: {
    type: 'object',
    properties: {
      node_id: { type: 'string' },
      file_path: { type: 'string' },
      type: { type: 'string' },
      from_hash: { type: 'string', description: 'changed only' },
      to_hash: { type: 'string', description: 'changed only' },
    },
  },
  DiffEdge: {
    type: 'object',
    properties: { source: { type: 'string' }, target: { type: 'string' } },
  },
  SearchResults: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            type: { type: 'string' },
            language: { type: 'string' },
            description: { type: ['string', 'null'] },
            distance: { type: ['number', 'null'], description: 'null only for a name match without embedding' },
            file_path: { type: 'string' },
            source_id: uuid,
            sync_id: uuid,
            repository: { type: 'string', description: "The source's owner/name." },
            match: {
              enum: ['path', 'path_suffix', 'file_name', 'file_prefix', 'meaning'],
              description: '/api/graph/search/files only: how the file was found.',
            },
          },
        },
      },
    },
  },
};
const paths = pathsOf([...SOURCE_ROUTES, ...SYNC_READS, listSchedules, ...NODE_ROUTES], schemas, HAND_WRITTEN_PATHS);

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Code-knowledge graph: graph component',
    version: '1.0.0',
    description:
      'Reads of the graph (merged snapshots, node detail, file text, stats, search, summaries), the source registry ' +
      'and reads of syncs, issues and schedules. Every error has the body `{ error: { code, message, field?, ' +
      'details? } }`. Lists are `{ items, next_cursor }`, newest first (issues: oldest first).',
  },
  paths,
  components: { schemas },
};
