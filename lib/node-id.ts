/**
 * Node identity: `src_<source_id>:<file_path>`. The file path keeps its slashes, spaces and unicode verbatim;
 * in URLs the whole id is a greedy path parameter (percent-decoded by the router).
 */
import { InvalidArgumentError } from './errors.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

export function encodeNodeId(sourceId: string, filePath: string): string {
  return `src_${sourceId}:${filePath}`;
}

export interface DecodedNodeId {
  sourceId: string;
  filePath: string;
}

/** Parses a node id; throws InvalidArgumentError (field `node_id`) when it is malformed. */
export function decodeNodeId(nodeId: string, field = 'node_id'): DecodedNodeId {
  if (!nodeId.startsWith('src_')) throw new InvalidArgumentError(field, 'must look like src_<source_id>:<file_path>');
  const sourceId = nodeId.slice(4, 40);
  if (!isUuid(sourceId) || nodeId[40] !== ':') {
    throw new InvalidArgumentError(field, 'must look like src_<source_id>:<file_path> with a UUID source id');
  }
  const filePath = nodeId.slice(41);
  if (filePath.length === 0) throw new InvalidArgumentError(field, 'file path is empty');
  // The same text rule as every other field (lib/validate.ts): PostgreSQL cannot hold NUL, U+FFFD means the bytes
  // were not UTF-8. Checked here, before any query sees the path.
  if (filePath.includes('\u0000')) throw new InvalidArgumentError(field, 'must not contain NUL characters');
  if (filePath.includes('\uFFFD') || /[\uD800-\uDFFF]/.test(filePath.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')))
    throw new InvalidArgumentError(field, 'must be valid UTF-8');
  return { sourceId: sourceId.toLowerCase(), filePath };
}
