/**
 * The graph reads, declared once (lib/api/route.ts): the merged graph of several syncs, the platform-wide counts,
 * a file's impact, the difference between two syncs and a pull request's report. The graph component mounts them
 * (graph-api/graph/routes.ts, graph-api/analysis/); its document and the client's types derive from these.
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../../errors.ts';
import { isUuid } from '../../node-id.ts';
import { queryEnum, queryInt } from '../../validate.ts';
import { param, query } from '../fields.ts';
import { route } from '../route.ts';
import { GRAPH_CLEANED, INVALID_PARAMETER, NOT_FOUND, READ_TIMEOUT } from './errors.ts';
import { timestamp, uuid } from '../schemas.ts';
import { PrReport } from '../pr-report.ts';

/** At most this many syncs per merged-graph request (membership is tracked in a 53-bit mask). */
export const MAX_SYNC_IDS = 50;

/** `sync_ids=a,b,c`: given once, each a UUID (lower-cased, repeats dropped), at most MAX_SYNC_IDS. */
export function parseSyncIds(raw: string | string[] | undefined): string[] {
  if (Array.isArray(raw)) throw new InvalidArgumentError('sync_ids', 'must be given once, as a comma-separated list');
  if (raw === undefined || raw.trim() === '') throw new InvalidArgumentError('sync_ids', 'is required');
  const ids: string[] = [];
  for (const part of raw.split(',')) {
    const v = part.trim();
    if (v === '') throw new InvalidArgumentError('sync_ids', 'contains an empty element');
    if (!isUuid(v)) throw new InvalidArgumentError('sync_ids', `${JSON.stringify(v.slice(0, 60))} is not a UUID`);
    const id = v.toLowerCase();
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length > MAX_SYNC_IDS)
    throw new InvalidArgumentError('sync_ids', `at most ${MAX_SYNC_IDS} syncs per request`);
  return ids;
}

export const DIRECTIONS = ['dependents', 'dependencies'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const IMPACT_DEPTH = { default: 3, min: 1, max: 10 } as const;
export const IMPACT_LIMIT = { default: 500, min: 1, max: 10_000 } as const;
export const DIFF_LIMIT = { default: 1000, min: 1, max: 20_000 } as const;
export const PR_LIMIT = { default: 200, min: 1, max: 5000 } as const;

// ---------------------------------------------------------------------------------------------------- responses

const syncIds = () => z.array(uuid());

export const Graph = z
  .object({
    nodes: z.array(
      z.object({
        data: z.object({
          id: z.string(),
          name: z.string(),
          type: z.string(),
          domain: z.string(),
          source_id: uuid(),
          file_path: z.string(),
          loaded_sync_ids: syncIds(),
          latest_sync_id: uuid(),
          divergent: z.boolean(),
        }),
      }),
    ),
    edges: z.array(
      z.object({
        data: z.object({
          source: z.string(),
          target: z.string(),
          label: z.literal('depends_on'),
          weight: z.number(),
          weight_max: z.number(),
          loaded_sync_ids: syncIds(),
        }),
      }),
    ),
    meta: z.object({ node_count: z.int(), edge_count: z.int(), sync_count: z.int(), query_ms: z.int() }),
  })
  .meta({ id: 'Graph' });
export type Graph = z.infer<typeof Graph>;
export type GraphNodeData = Graph['nodes'][number]['data'];
export type GraphEdgeData = Graph['edges'][number]['data'];

export const Stats = z
  .object({
    nodes_by_type: z.record(z.string(), z.int()),
    total_nodes: z.int(),
    total_edges: z.int(),
    edges_by_label: z.record(z.string(), z.int()),
  })
  .meta({ id: 'Stats' });
export type Stats = z.infer<typeof Stats>;

export const Impact = z
  .object({
    node_id: z.string(),
    sync_id: uuid(),
    direction: z.enum(DIRECTIONS),
    depth: z.int(),
    total: z.int(),
    truncated: z.boolean(),
    by_distance: z.record(z.string(), z.int()),
    items: z.array(
      z.object({
        node_id: z.string(),
        file_path: z.string(),
        name: z.string(),
        type: z.string(),
        distance: z.int().min(1),
        via: z.string(),
      }),
    ),
    query_ms: z.int(),
  })
  .meta({ id: 'Impact' });
export type Impact = z.infer<typeof Impact>;

export const SyncRef = z.object({ id: uuid(), status: z.string(), created_at: timestamp() }).meta({ id: 'SyncRef' });
export const DiffFile = z
  .object({
    node_id: z.string(),
    file_path: z.string(),
    type: z.string(),
    from_hash: z.string().optional().describe('changed only'),
    to_hash: z.string().optional().describe('changed only'),
  })
  .meta({ id: 'DiffFile' });
export const DiffEdge = z.object({ source: z.string(), target: z.string() }).meta({ id: 'DiffEdge' });

export const Diff = z
  .object({
    source_id: uuid(),
    from: SyncRef,
    to: SyncRef,
    counts: z.object({
      added: z.int(),
      removed: z.int(),
      changed: z.int(),
      unchanged: z.int(),
      edges_added: z.int(),
      edges_removed: z.int(),
    }),
    truncated: z.boolean(),
    files: z.object({ added: z.array(DiffFile), removed: z.array(DiffFile), changed: z.array(DiffFile) }),
    edges: z.object({ added: z.array(DiffEdge), removed: z.array(DiffEdge) }),
    query_ms: z.int(),
  })
  .meta({ id: 'Diff' });
export type Diff = z.infer<typeof Diff>;

// ------------------------------------------------------------------------------------------------------- routes

export const getGraph = route({
  method: 'GET',
  path: '/api/graph',
  summary: 'Merged graph of several syncs',
  description:
    'One node per (source_id, file_path) over the requested syncs, fields from the newest requested sync ' +
    '(created_at) containing it. loaded_sync_ids: the requested syncs containing it, newest first. divergent: ' +
    'their content_hash values differ. Edges: the depends_on edges of the requested syncs, one per (source, ' +
    'target): weight = sum of the per-sync weights, weight_max = the largest. A cleaned sync contributes ' +
    'nothing (its graph is gone). Unknown ids: 404 with details.unknown_sync_ids. The body is compressed ' +
    '(Content-Encoding br or gzip) when Accept-Encoding allows it, and sent as is otherwise; `Vary: ' +
    'Accept-Encoding`. The JSON is the same either way.',
  query: {
    sync_ids: param(
      {
        schema: { type: 'string' },
        description: `Comma-separated sync UUIDs (at most ${MAX_SYNC_IDS}).`,
        required: true,
      },
      (q, n) => parseSyncIds(q[n]),
    ),
  },
  success: { status: 200, description: 'The merged graph', schema: Graph },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND, 504: READ_TIMEOUT },
});

export const getStats = route({
  method: 'GET',
  path: '/api/graph/stats',
  summary: 'Platform-wide counts',
  description:
    'nodes_by_type and total_nodes count file records (of every sync); total_edges counts every edge of the ' +
    'graph (all labels), edges_by_label splits it.',
  success: { status: 200, description: 'Counts', schema: Stats },
  responses: { 504: READ_TIMEOUT },
});

export const getImpact = route({
  method: 'GET',
  path: '/api/graph/impact',
  summary: 'Impact of a file: what depends on it (or what it depends on), transitively',
  description:
    'A breadth-first walk over the depends_on edges of one sync from the file: `dependents` follows edges ' +
    'backwards (the files that import it, then theirs, ...), `dependencies` forwards. Each file reached is ' +
    'listed once with its shortest distance (1 = direct) and `via`, the file one step closer to the start on a ' +
    'shortest path (the start itself at distance 1). Sorted by distance, then path. `total` counts every file ' +
    'reached; items stop at `limit` (then truncated=true). by_distance: files per distance. A cleaned sync: ' +
    '409 FAILED_PRECONDITION. Beside /api/graph/nodes/{node_id} on purpose: the node id is a query parameter.',
  query: {
    node_id: query.nodeId('`src_<source_id>:<file_path>`.'),
    direction: param(
      { schema: { enum: DIRECTIONS, default: 'dependents' }, description: 'Walk direction.' },
      (q, n): Direction => queryEnum(q, n, DIRECTIONS) ?? 'dependents',
    ),
    depth: query.int('Largest distance.', IMPACT_DEPTH),
    limit: query.int('Most items returned.', IMPACT_LIMIT),
    sync_id: query.uuid(
      'The sync to read. Default: the newest completed sync (by created_at) of the source that contains the file.',
    ),
  },
  success: { status: 200, description: 'The files reached', schema: Impact },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND, 409: GRAPH_CLEANED, 504: READ_TIMEOUT },
});

export const getDiff = route({
  method: 'GET',
  path: '/api/graph/diff',
  summary: 'What changed between two syncs of a source',
  description:
    'files.added / removed: paths only in `to` / only in `from`; files.changed: in both with a different ' +
    'content_hash. edges: depends_on edges (by the paths of their ends) only in `to` (added) or only in ' +
    '`from` (removed). Defaults: `to` = the source’s newest completed sync, `from` = its newest completed sync ' +
    'created before `to`; at least one of source_id, from, to is needed. Both syncs must belong to one source ' +
    '(400 naming the parameter otherwise). Each list stops at `limit` (truncated=true); counts are complete. ' +
    'Lists are sorted by path. A cleaned sync: 409 FAILED_PRECONDITION.',
  query: {
    source_id: query.uuid('The source (needed when neither from nor to is given).'),
    from: query.uuid('The older sync.'),
    to: query.uuid('The newer sync.'),
    limit: query.int('Most items per list.', DIFF_LIMIT),
  },
  success: { status: 200, description: 'The difference', schema: Diff },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND, 409: GRAPH_CLEANED, 504: READ_TIMEOUT },
});

export const getPrReport = route({
  method: 'GET',
  path: '/api/graph/pr',
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
  query: {
    sync_id: query.uuid('A pull request sync.'),
    source_id: query.uuid('The source (with number).'),
    number: param(
      { schema: { type: 'integer', minimum: 1 }, description: 'The pull/merge request number (with source_id).' },
      (q, n) => queryInt(q, n, { default: 0, min: 1, max: 2_147_483_647 }),
    ),
    limit: query.int('Most items per list.', PR_LIMIT),
  },
  success: { status: 200, description: 'The report', schema: PrReport },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND, 409: GRAPH_CLEANED, 504: READ_TIMEOUT },
});

export const GRAPH_ROUTES = [getGraph, getStats, getImpact, getDiff, getPrReport] as const;
