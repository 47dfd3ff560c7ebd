/**
 * Spec graph rule 6: semantic search over file embeddings. Searched: each source's newest completed sync (one
 * version of each file, the one node detail shows without sync_id), or the scope the caller names (source_id,
 * sync_ids: graph-api/search/scope.ts). Nearest neighbours come from the HNSW index
 * (approximate, cosine distance) with pgvector's iterative scan so a filter on syncs and type still fills the limit;
 * the rows are then ordered by their exact distance, ascending.
 */
import { toVectorLiteral } from '../../lib/db.ts';
import { encodeNodeId } from '../../lib/node-id.ts';
import type { FileHit } from '../../lib/api/routes/search.ts';
import type { ReadTx } from '../db/read.ts';
import { filesByName, nameQuery } from './names.ts';
import { splitIdentifiers } from '../../lib/search-terms.ts';

/** Same cap as every embedding input of the service (prefix included). */
export const EMBED_INPUT_CHARS = 1400;

export function searchInput(q: string): string {
  return `search_query: ${q}`.slice(0, EMBED_INPUT_CHARS);
}

/**
 * Chunk search embeds the query with its identifiers written as words (`ParseDur` → `parse dur`, `as_completed` →
 * `as completed`), as the chunks' key texts write the names they define (engine/embedding.ts chunkKeyInput): a
 * sentence model reads words, not camelCase. Plain words are unchanged (the model is not case-sensitive).
 */
export function chunkSearchInput(q: string): string {
  return searchInput(splitIdentifiers(q));
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
  repository: string;
}

export async function searchFiles(
  tx: ReadTx,
  vector: readonly number[],
  opts: { type?: string | undefined; limit: number; syncIds: string[] },
): Promise<FileHit[]> {
  if (opts.syncIds.length === 0) return [];
  await tx.query(
    `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
                         set_config('hnsw.ef_search', $1, true)`,
    [String(Math.max(40, opts.limit * 2))],
  );
  const res = await tx.query<ResultRow>(
    `SELECT * FROM (
       SELECT f.source_id, f.file_path, f.name, f.type, f.language, f.description, f.sync_id,
              f.embedding <=> $1::vector AS distance,
              (SELECT s.owner || '/' || s.name FROM sources s WHERE s.id = f.source_id) AS repository
         FROM file_records f
        WHERE f.sync_id = ANY($2::uuid[]) AND f.embedding IS NOT NULL AND ($3::text IS NULL OR f.type = $3)
        ORDER BY f.embedding <=> $1::vector
        LIMIT $4
     ) r ORDER BY r.distance, r.source_id, r.file_path`,
    [toVectorLiteral(vector), opts.syncIds, opts.type ?? null, opts.limit],
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
    repository: r.repository,
  }));
}

/**
 * File search, names first (GET /api/graph/search/files): the files whose path or name the query is (or ends
 * with), then the spec's search by meaning over the same scope, without repeats. Each result says how it matched
 * (`match`: path, path_suffix, file_name, file_prefix, or meaning) and carries the spec's fields.
 */
export async function searchFilesNamesFirst(
  tx: ReadTx,
  vector: readonly number[] | null,
  opts: { type?: string | undefined; limit: number; syncIds: string[] },
  q: string,
): Promise<FileHit[]> {
  if (opts.syncIds.length === 0) return [];
  const nq = nameQuery(q);
  const named =
    nq?.kind === 'path' ? await filesByName(tx, opts.syncIds, nq.text, { fileType: opts.type }, opts.limit) : [];
  const out: FileHit[] = [];
  const seen = new Set<string>();
  if (named.length > 0) {
    const res = await tx.query<Omit<ResultRow, 'distance'> & { distance: number | null }>(
      `SELECT f.source_id, f.file_path, f.name, f.type, f.language, f.description, f.sync_id,
              CASE WHEN $3::vector IS NULL OR f.embedding IS NULL THEN NULL ELSE f.embedding <=> $3::vector END
                AS distance,
              (SELECT s.owner || '/' || s.name FROM sources s WHERE s.id = f.source_id) AS repository
         FROM unnest($1::uuid[], $2::text[]) AS n(sync_id, file_path)
         JOIN file_records f ON f.sync_id = n.sync_id AND f.file_path = n.file_path`,
      [named.map((n) => n.sync_id), named.map((n) => n.file_path), vector ? toVectorLiteral(vector) : null],
    );
    const rows = new Map(res.rows.map((r) => [`${r.sync_id}:${r.file_path}`, r]));
    for (const n of named) {
      const r = rows.get(`${n.sync_id}:${n.file_path}`);
      if (!r) continue;
      seen.add(`${r.source_id}:${r.file_path}`);
      out.push({ ...fileResult(r), distance: r.distance, match: n.match as FileHit['match'] });
    }
  }
  if (vector !== null && out.length < opts.limit) {
    for (const r of await searchFiles(tx, vector, { ...opts, limit: opts.limit })) {
      if (out.length >= opts.limit) break;
      if (seen.has(`${r.source_id}:${r.file_path}`)) continue;
      out.push({ ...r, match: 'meaning' });
    }
  }
  return out;
}

function fileResult(r: Omit<ResultRow, 'distance'>): Omit<FileHit, 'distance'> {
  return {
    id: encodeNodeId(r.source_id, r.file_path),
    name: r.name,
    type: r.type,
    language: r.language,
    description: r.description,
    file_path: r.file_path,
    source_id: r.source_id,
    sync_id: r.sync_id,
    repository: r.repository,
  };
}
