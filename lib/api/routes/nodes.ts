/**
 * Node detail, file text and file summary of the graph component, declared once (lib/api/route.ts). Their paths
 * take a node id with literal slashes, so the component matches them itself (graph-api/graph/node-path.ts: split
 * at the last literal `/`); it reads their query with these declarations, and the document and the client derive
 * from them like every other route.
 */
import { z } from 'zod';
import { path, query } from '../fields.ts';
import { route } from '../route.ts';
import { INVALID_PARAMETER, NOT_FOUND, READ_TIMEOUT } from './errors.ts';
import { nullableTimestamp, uuid } from '../schemas.ts';

const nodeParams = {
  node_id: path.string(
    { type: 'string' },
    '`src_<source_id>:<file_path>`; slashes may stay literal. The raw path is split at its last literal `/` before ' +
      'percent-decoding: a last segment `summary` or `file` selects that sub-resource unless the whole path names a ' +
      'file of the source (then it is that node). `%2F` never splits, so encodeURIComponent(node_id) is always ' +
      'unambiguous.',
  ),
};
const syncId = () =>
  query.uuid(
    'The sync to read. Default: the newest completed sync (by created_at) of the source that contains the file.',
  );

/** A node of node detail: a file's record, or a symbol's (its own fields; GET /api/graph/symbol has them all). */
export const NodeDetail = z
  .object({
    node: z.looseObject({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      language: z.string().optional(),
      size_bytes: z.int().optional(),
      line_count: z.int().optional(),
      description: z.string().nullable().optional(),
      imports_count: z.int().optional(),
      content_hash: z.string().optional(),
      domain: z.string().optional(),
      file_path: z.string(),
      source_id: uuid(),
      sync_id: uuid(),
      exports: z.array(z.string()).optional(),
      status: z.string().optional(),
      description_generated_at: nullableTimestamp().optional(),
    }),
    neighbors: z.array(
      z.looseObject({
        node_id: z.string(),
        name: z.string(),
        rel_type: z.string(),
        weight: z.number(),
        direction: z.enum(['in', 'out']),
        label: z.string().optional(),
        file_path: z.string().optional(),
        type: z.string().optional(),
        kind: z.string().optional(),
        line: z.int().optional(),
      }),
    ),
  })
  .meta({ id: 'NodeDetail' });
export type NodeDetail = z.infer<typeof NodeDetail>;

export const FileText = z
  .object({
    node_id: z.string(),
    sync_id: uuid(),
    content: z.string(),
    chunk_count: z.int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'FileText' });
export type FileText = z.infer<typeof FileText>;

export const Summary = z
  .object({
    node_id: z.string(),
    sync_id: uuid(),
    file_id: uuid().optional(),
    source: z.enum(['cache', 'llm', 'no_content', 'llm_failed']),
    summary: z.string().nullable(),
    generated_at: nullableTimestamp(),
    model: z.string().optional(),
    attempts: z.int().min(1).max(3).optional(),
    error: z.string().optional().describe('Why the last attempt failed (llm_failed only).'),
  })
  .meta({ id: 'Summary' });
export type Summary = z.infer<typeof Summary>;

export const getNode = route({
  method: 'GET',
  path: '/api/graph/nodes/{node_id}',
  summary: 'Node detail with its neighbours',
  description:
    'neighbors: every edge touching the file, both directions, rel_type = the edge label. File neighbours ' +
    'carry their node id; Symbol neighbours (defines) carry their symbol_id `<file_id>:<name>:<line>` as ' +
    'node_id plus kind and line. weight is the edge weight, 1 for edges without one (defines).',
  params: nodeParams,
  query: { sync_id: syncId() },
  success: { status: 200, description: 'The node', schema: NodeDetail },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND, 504: READ_TIMEOUT },
});

export const getFile = route({
  method: 'GET',
  path: '/api/graph/nodes/{node_id}/file',
  summary: 'The file text reconstructed from its chunks',
  description:
    'Chunks joined in chunk_index order, breadcrumbs stripped, leading lines already covered by the previous ' +
    'chunk dropped. Cut at 5,242,880 bytes (UTF-8, on a character boundary) with truncated=true.',
  params: nodeParams,
  query: { sync_id: syncId() },
  success: { status: 200, description: 'The file', schema: FileText },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND, 504: READ_TIMEOUT },
});

export const getSummary = route({
  method: 'GET',
  path: '/api/graph/nodes/{node_id}/summary',
  summary: 'A short language-model summary of the file',
  description:
    'source: `cache` (cached description, force=false), `llm` (generated now and cached), `no_content` (no ' +
    'chunks), `llm_failed` (every attempt failed: context-window errors at budgets 1.0, 0.5, 0.25, or another ' +
    'model error; nothing cached). One model call per file at a time across processes.',
  params: nodeParams,
  query: { sync_id: syncId(), force: query.bool('Regenerate even when cached.', false) },
  success: { status: 200, description: 'The summary', schema: Summary },
  responses: { 400: INVALID_PARAMETER, 404: NOT_FOUND },
});

export const NODE_ROUTES = [getNode, getFile, getSummary] as const;
