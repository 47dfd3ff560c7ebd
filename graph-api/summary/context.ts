/**
 * Spec graph rule 4 (b)-(d): the summary's graph context. Neighbours come from the graph under a 10000 ms statement
 * timeout; file neighbours get their name, path, type, cached description and the first 8 lines of their first chunk
 * (the body, after the breadcrumb), are ranked by cosine similarity of their file embedding to this file's, and the
 * top SUMMARY_EDGE_NEIGHBORS are kept. Symbols the file defines are kept too (name, kind, line), after the files.
 */
import type { Pool } from '../../lib/db.ts';
import { neighbors, type NeighborRow } from '../graph/node-queries.ts';
import type { ContextNeighbor } from './prompt.ts';

export const NEIGHBOR_TIMEOUT_MS = 10_000;
const HEAD_LINES = 8;

interface NeighborFileRow {
  id: string;
  file_path: string;
  name: string;
  type: string;
  description: string | null;
  first_chunk: string | null;
  similarity: number | null;
}

function firstLines(content: string | null): string | undefined {
  if (content === null) return undefined;
  let at = -1;
  for (let i = 0; i < 3; i++) {
    at = content.indexOf('\n', at + 1);
    if (at === -1) return undefined;
  }
  const lines = content
    .slice(at + 1)
    .split('\n')
    .slice(0, HEAD_LINES);
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines.length > 0 ? lines.join('\n') : undefined;
}

export async function neighborContext(pool: Pool, fileId: string, keep: number): Promise<ContextNeighbor[]> {
  const client = await pool.connect();
  let edges: NeighborRow[];
  let files: NeighborFileRow[] = [];
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${NEIGHBOR_TIMEOUT_MS}`);
    edges = await neighbors(client, fileId);
    const fileIds = [...new Set(edges.filter((e) => e.label === 'File' && e.file_id).map((e) => e.file_id!))];
    if (fileIds.length > 0) {
      files = (
        await client.query<NeighborFileRow>(
          `SELECT f.id, f.file_path, f.name, f.type, f.description,
                  (SELECT c.content FROM content_chunks c WHERE c.file_id = f.id ORDER BY c.chunk_index LIMIT 1)
                    AS first_chunk,
                  CASE WHEN f.embedding IS NULL OR me.embedding IS NULL THEN NULL
                       ELSE 1 - (f.embedding <=> me.embedding) END AS similarity
             FROM file_records f
             LEFT JOIN file_records me ON me.id = $1
            WHERE f.id = ANY($2::uuid[])`,
          [fileId, fileIds],
        )
      ).rows;
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  const byId = new Map(files.map((f) => [f.id, f]));
  const fileEdges = edges
    .filter((e) => e.label === 'File' && e.file_id !== null && byId.has(e.file_id))
    .map((e) => ({ e, f: byId.get(e.file_id!)! }))
    .sort(
      (a, b) =>
        (b.f.similarity ?? -Infinity) - (a.f.similarity ?? -Infinity) || (a.f.file_path < b.f.file_path ? -1 : 1),
    )
    .slice(0, keep);
  const out: ContextNeighbor[] = fileEdges.map(({ e, f }) => {
    const head = firstLines(f.first_chunk);
    return {
      rel_type: e.rel_type,
      direction: e.direction,
      label: 'File',
      name: f.name,
      file_path: f.file_path,
      type: f.type,
      description: f.description,
      ...(head !== undefined ? { head } : {}),
    };
  });
  for (const e of edges) {
    if (e.label === 'File') continue;
    out.push({
      rel_type: e.rel_type,
      direction: e.direction,
      label: e.label,
      name: e.name ?? '',
      ...(e.kind !== null ? { kind: e.kind } : {}),
      ...(e.line !== null ? { line: e.line } : {}),
    });
  }
  return out;
}
