/**
 * The node id in `/api/graph/nodes/{node_id}[/summary|/file]` holds slashes, so the path is read greedily:
 *
 * 1. The raw (still percent-encoded) path after `/api/graph/nodes/` is split at its last literal `/`. If the last
 *    segment is exactly `summary` or `file`, the request may be for that sub-resource of the node id before it.
 * 2. Percent-decoding happens after the split, so `%2F` never splits: `src_<id>:docs%2Fsummary` is always the node
 *    `docs/summary` itself, and `src_<id>:docs%2Fsummary/summary` its summary. Encoding the whole node id with
 *    encodeURIComponent is therefore always unambiguous.
 * 3. In the unencoded form a path ending in `/summary` or `/file` is ambiguous: when the whole path names a file of
 *    the source (in the requested sync, or in its newest completed sync when sync_id is absent), it is that node's
 *    detail; otherwise it is the sub-resource of the shorter id. Within one snapshot a path cannot be both a file
 *    and a folder, so at most one reading names a file.
 */
import { InvalidArgumentError } from '../../lib/errors.ts';
import { decodeNodeId, type DecodedNodeId } from '../../lib/node-id.ts';

export const NODES_PREFIX = '/api/graph/nodes/';

export type NodeAction = 'detail' | 'summary' | 'file';

export interface NodeRequest {
  nodeId: string;
  decoded: DecodedNodeId;
}

export interface ParsedNodePath {
  /** The whole path as a node id (always a candidate for detail). */
  whole: NodeRequest | undefined;
  /** The sub-resource reading, when the last raw segment is `summary` or `file`. */
  sub: { action: 'summary' | 'file'; node: NodeRequest } | undefined;
}

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new InvalidArgumentError('node_id', 'is not validly percent-encoded');
  }
}

function tryNode(raw: string): NodeRequest | undefined {
  const nodeId = decode(raw);
  try {
    return { nodeId, decoded: decodeNodeId(nodeId) };
  } catch {
    return undefined;
  }
}

export function parseNodePath(rawRest: string): ParsedNodePath {
  if (rawRest === '') throw new InvalidArgumentError('node_id', 'is required');
  const cut = rawRest.lastIndexOf('/');
  const last = cut === -1 ? '' : rawRest.slice(cut + 1);
  let sub: ParsedNodePath['sub'];
  if (last === 'summary' || last === 'file') {
    const node = tryNode(rawRest.slice(0, cut));
    if (node) sub = { action: last, node };
  }
  const whole = tryNode(rawRest);
  if (!whole && !sub) {
    // Neither reading is a node id: report the problem with the whole id.
    decodeNodeId(decode(rawRest));
  }
  return { whole, sub };
}
