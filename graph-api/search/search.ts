/**
 * Spec graph rule 6: semantic search over file embeddings. Searched: each source's newest completed sync (one
 * version of each file, the one node detail shows without sync_id). Nearest neighbours come from the HNSW index
 * (approximate, cosine distance) with pgvector's iterative scan so a filter on syncs and type still fills the limit;
 * the rows are then ordered by their exact distance, ascending.
 */
import { toVectorLiteral } from '../../lib/db.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import type { ReadTx } from '../db/read.ts';

export const FILE_TYPES = ['source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service'] as const;
export const SEARCH_LIMIT = { default: 20, min: 1, max: 100 } as const;
/** Same cap as every embedding input of the service (prefix included). */
export const EMBED_INPUT_CHARS = 1400;

export function searchInput(q: string): string {
  return `search_query: ${q}`.slice(0, EMBED_INPUT_CHARS);
}

interface ResultRow {
  source_id: string;
  file_path: string;
  name: string;
  type: string;
  language: string;
  description: string | null;
  sync_id: string;
  distance: number;
}

export async function searchFiles(
  tx: ReadTx,
  vector: readonly number[],
  opts: { type?: string | undefined; limit: number },
): Promise<Record<string, unknown>[]> {
  const latest = await tx.query<{ id: string }>(
    `SELECT DISTINCT ON (source_id) id FROM sync_runs WHERE status = 'completed'
        AND NOT EXISTS (SELECT 1 FROM pull_request_syncs p WHERE p.sync_id = sync_runs.id)
      ORDER BY source_id, created_at DESC, id DESC`,
  );
  if (latest.rows.length === 0) return [];
  await tx.query(
    `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
                         set_config('hnsw.ef_search', $1, true)`,
    [String(Math.max(40, opts.limit * 2))],
  );
  const res = await tx.query<ResultRow>(
    `SELECT * FROM (
       SELECT f.source_id, f.file_path, f.name, f.type, f.language, f.description, f.sync_id,
              f.embedding <=> $1::vector AS distance
         FROM file_records f
        WHERE f.sync_id = ANY($2::uuid[]) AND f.embedding IS NOT NULL AND ($3::text IS NULL OR f.type = $3)
        ORDER BY f.embedding <=> $1::vector
        LIMIT $4
     ) r ORDER BY r.distance, r.source_id, r.file_path`,
    [toVectorLiteral(vector), latest.rows.map((r) => r.id), opts.type ?? null, opts.limit],
  );
  return res.rows.map((r) => ({
    id: encodeNodeId(r.source_id, r.file_path),
    name: r.name,
    type: r.type,
    language: r.language,
    description: r.description,
    distance: r.distance,
    file_path: r.file_path,
    source_id: r.source_id,
    sync_id: r.sync_id,
  }));
}
