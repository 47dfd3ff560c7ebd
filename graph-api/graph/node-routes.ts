/**
 * GET /api/graph/nodes/{node_id}, /{node_id}/summary and /{node_id}/file, with the greedy path rule of
 * node-path.ts.
 */
import type Koa from 'koa';
import { encodeNodeId } from '../../lib/node-id.ts';
import type { ObservedState } from '../../lib/observe.ts';
import { readParams } from '../../lib/api/route.ts';
import { getSummary } from '../../lib/api/routes/nodes.ts';
import { withReadTx } from '../db/read.ts';
import type { GraphAppDeps } from '../deps.ts';
import { reconstruct } from '../file/reconstruct.ts';
import { iso } from '../rows.ts';
import { symbolAddress } from '../symbols/address.ts';
import { symbolJson } from '../symbols/read.ts';
import { findSymbol } from '../symbols/routes.ts';
import type { SymbolEdgeInfo, SymbolGraphCache } from '../symbols/snapshot.ts';
import type { ReadTx } from '../db/read.ts';
import { NODES_PREFIX, parseNodePath, type NodeAction, type NodeRequest } from './node-path.ts';
import {
  chunksOf,
  fileNotFound,
  findFile,
  findFileWithChunks,
  findFileWithNeighbors,
  neighbors,
  requireFile,
  type FileRecordRow,
  type NeighborRow,
} from './node-queries.ts';

/**
 * A neighbour as node detail lists it. `filePath`: the path of the node whose neighbours these are; a Symbol it
 * defines (issue 28) is addressable as `src_<source_id>:<path>#<key>` (GET /api/graph/symbol), and its node_id says
 * so when it has a key (else its symbol_id, as before the symbol graph).
 */
export function neighborJson(n: NeighborRow, filePath?: string): Record<string, unknown> {
  if (n.label === 'File' && n.source_id !== null && n.file_path !== null) {
    return {
      node_id: encodeNodeId(n.source_id, n.file_path),
      name: n.name,
      rel_type: n.rel_type,
      weight: n.weight ?? 1,
      direction: n.direction,
      label: 'File',
      file_path: n.file_path,
      type: n.type,
    };
  }
  const address =
    n.label === 'Symbol' && n.key !== null && n.source_id !== null && filePath !== undefined && n.rel_type === 'defines'
      ? symbolAddress(n.source_id, filePath, n.key)
      : undefined;
  // A Symbol (or a vertex of a future label): its address, else its own id property.
  return {
    node_id: address ?? n.symbol_id ?? n.file_id,
    ...(address !== undefined ? { symbol_id: n.symbol_id, key: n.key } : {}),
    name: n.name,
    rel_type: n.rel_type,
    weight: n.weight ?? 1,
    direction: n.direction,
    label: n.label,
    ...(n.kind !== null ? { kind: n.kind } : {}),
    ...(n.line !== null ? { line: n.line } : {}),
  };
}

function nodeJson(nodeId: string, f: FileRecordRow): Record<string, unknown> {
  return {
    id: nodeId,
    name: f.name,
    type: f.type,
    language: f.language,
    size_bytes: f.size_bytes,
    line_count: f.line_count,
    description: f.description,
    imports_count: f.imports_count,
    content_hash: f.content_hash,
    domain: f.domain,
    file_path: f.file_path,
    source_id: f.source_id,
    sync_id: f.sync_id,
    exports: f.exports,
    status: f.status,
    description_generated_at: iso(f.description_generated_at),
  };
}

/** The route label of each action in the request metrics (a template, never the node id). */
const ROUTE_OF: Record<NodeAction, string> = {
  detail: '/api/graph/nodes/{node_id}',
  summary: '/api/graph/nodes/{node_id}/summary',
  file: '/api/graph/nodes/{node_id}/file',
};

/**
 * Node detail of a symbol (issue 28): `src_<source_id>:<path>#<key>` when no file has that whole path. The spec's
 * node shape (the file's language and content hash; name, type `symbol`, lines) with the symbol's neighbours: the
 * File that defines it and every symbol edge (calls, inherits, implements, overrides, references) in both
 * directions, weight = the edge's site count.
 */
async function symbolNode(
  tx: ReadTx,
  cache: SymbolGraphCache,
  sourceId: string,
  filePath: string,
  syncId: string | undefined,
): Promise<Record<string, unknown> | undefined> {
  const at = filePath.lastIndexOf('#');
  if (at <= 0 || at === filePath.length - 1) return undefined;
  const path = filePath.slice(0, at);
  const found = await findSymbol(tx, cache, { sourceId, filePath: path, key: filePath.slice(at + 1) }, syncId);
  if (!found) return undefined;
  const { g, index } = found;
  const file = await findFile(tx, sourceId, path, g.syncId);
  if (!file) return undefined;
  const neighbors: Record<string, unknown>[] = [
    {
      node_id: encodeNodeId(sourceId, path),
      name: file.name,
      rel_type: 'defines',
      weight: 1,
      direction: 'in',
      label: 'File',
      file_path: path,
      type: file.type,
    },
  ];
  const edge = (e: SymbolEdgeInfo, direction: 'in' | 'out') => ({
    ...symbolJson(g, e.other),
    node_id: symbolJson(g, e.other).id,
    rel_type: e.label,
    weight: e.count,
    direction,
    label: 'Symbol',
    provenance: e.provenance,
    confidence: e.confidence,
    lines: e.lines,
  });
  for (const e of g.out[index]!) neighbors.push(edge(e, 'out'));
  for (const e of g.in[index]!) neighbors.push(edge(e, 'in'));
  return {
    node: {
      id: found.id,
      name: g.names[index],
      type: 'symbol',
      language: file.language,
      size_bytes: null,
      line_count: g.endLines[index]! - g.lines[index]! + 1,
      description: null,
      imports_count: 0,
      content_hash: file.content_hash,
      kind: g.kinds[index],
      symbol_kind: g.symbolKinds[index],
      key: g.keys[index],
      line: g.lines[index],
      end_line: g.endLines[index],
      file_path: path,
      file_node_id: encodeNodeId(sourceId, path),
      source_id: sourceId,
      sync_id: g.syncId,
    },
    neighbors,
  };
}

export function nodeRoutes(deps: GraphAppDeps, symbols: SymbolGraphCache): Koa.Middleware {
  const { pool, graphTimeoutMs } = deps;
  return async (ctx, next) => {
    if (!ctx.path.startsWith(NODES_PREFIX) || ctx.method !== 'GET') {
      await next();
      return;
    }
    (ctx.state as ObservedState).route = ROUTE_OF.detail;
    const parsed = parseNodePath(ctx.path.slice(NODES_PREFIX.length));
    // The query of the three node routes (lib/api/routes/nodes.ts); force is the summary's, false elsewhere.
    const { sync_id: syncId, force } = readParams(getSummary.query, ctx.query);

    const result = await withReadTx(pool, graphTimeoutMs, async (tx) => {
      let action: NodeAction = 'detail';
      let node: NodeRequest;
      let found: FileRecordRow | undefined;
      if (parsed.sub && parsed.whole) {
        // Ambiguous: the whole path wins when it names a file.
        found = await findFile(tx, parsed.whole.decoded.sourceId, parsed.whole.decoded.filePath, syncId);
        if (found) node = parsed.whole;
        else ({ action, node } = parsed.sub);
      } else if (parsed.sub) {
        ({ action, node } = parsed.sub);
      } else {
        node = parsed.whole!;
      }
      (ctx.state as ObservedState).route = ROUTE_OF[action];
      const { sourceId, filePath } = node.decoded;
      const missing = () => fileNotFound(tx, node.nodeId, syncId);
      if (action === 'summary') {
        return {
          summaryOf: {
            nodeId: node.nodeId,
            file: found ?? (await requireFile(tx, node.nodeId, sourceId, filePath, syncId)),
          },
        };
      }
      // The file record and what the endpoint shows of it come in one statement (the usual, unambiguous case).
      if (action === 'file') {
        const got = found
          ? { file: found, chunks: await chunksOf(tx, found.id) }
          : ((await findFileWithChunks(tx, sourceId, filePath, syncId)) ?? (await missing()));
        const { content, truncated } = reconstruct(got.chunks);
        return {
          body: {
            node_id: node.nodeId,
            sync_id: got.file.sync_id,
            content,
            chunk_count: got.chunks.length,
            truncated,
          },
        };
      }
      const got = found
        ? { file: found, neighbors: await neighbors(tx, found.id) }
        : await findFileWithNeighbors(tx, sourceId, filePath, syncId);
      if (!got) {
        const symbol = await symbolNode(tx, symbols, sourceId, filePath, syncId);
        if (symbol) return { body: symbol };
        return missing();
      }
      return {
        body: {
          node: nodeJson(node.nodeId, got.file),
          neighbors: got.neighbors.map((n) => neighborJson(n, got.file.file_path)),
        },
      };
    });
    // The summary runs outside the read transaction: it may wait seconds for the model.
    ctx.body = result.summaryOf ? await deps.summaries.summarize({ ...result.summaryOf, force }) : result.body;
  };
}
