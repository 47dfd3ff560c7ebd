/** Embeddings: the writers that backfill vectors into rows written earlier (file contents, chunks), and the readers of what still lacks one. */
import { toVectorLiteral, type Queryable } from '../../lib/db.ts';

export interface EmbeddingPair {
  id: string;
  embedding: ArrayLike<number>;
}

/** File vectors live in the file record's shared content (schema V12); `id` is the file record's id. */
export async function setFileEmbeddings(db: Queryable, pairs: readonly EmbeddingPair[]): Promise<number> {
  if (pairs.length === 0) return 0;
  const res = await db.query(
    `UPDATE file_contents AS c SET embedding = v.e::vector
       FROM unnest($1::uuid[], $2::text[]) AS v(id, e), sync_files s
      WHERE s.id = v.id AND c.id = s.content_id`,
    [pairs.map((p) => p.id), pairs.map((p) => toVectorLiteral(p.embedding))],
  );
  return res.rowCount ?? 0;
}

/** Sets one of a shared chunk row's two vector columns (the column name is one of these two literals). */
async function setChunkVectors(
  db: Queryable,
  column: 'embedding' | 'key_embedding',
  pairs: readonly EmbeddingPair[],
): Promise<number> {
  if (pairs.length === 0) return 0;
  const res = await db.query(
    `UPDATE file_content_chunks AS t SET ${column} = v.e::vector
       FROM unnest($1::uuid[], $2::text[]) AS v(id, e)
      WHERE t.id = v.id`,
    [pairs.map((p) => p.id), pairs.map((p) => toVectorLiteral(p.embedding))],
  );
  return res.rowCount ?? 0;
}

/** `id` is the id of the shared chunk row (file_content_chunks.id). */
export function setChunkEmbeddings(db: Queryable, pairs: readonly EmbeddingPair[]): Promise<number> {
  return setChunkVectors(db, 'embedding', pairs);
}

/** A chunk's key vector (schema V54: its names and messages in words, engine/embedding.ts chunkKeyInput). */
export function setChunkKeyEmbeddings(db: Queryable, pairs: readonly EmbeddingPair[]): Promise<number> {
  return setChunkVectors(db, 'key_embedding', pairs);
}

// ------------------------------------------------------------------------------------------------------ readers

/** Files and chunks of a sync without a vector. */
export async function missingVectors(db: Queryable, syncId: string): Promise<{ files: number; chunks: number }> {
  const r = await db.query<{ files: number; chunks: number }>(
    `SELECT (SELECT count(*)::int FROM sync_files s JOIN file_contents c ON c.id = s.content_id
              WHERE s.sync_id = $1 AND c.embedding IS NULL) AS files,
            (SELECT count(*)::int FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
              WHERE s.sync_id = $1 AND k.embedding IS NULL) AS chunks`,
    [syncId],
  );
  return r.rows[0] ?? { files: 0, chunks: 0 };
}

/** The file records of a sync whose content has no vector, by path. */
export async function filesWithoutVector(
  db: Queryable,
  syncId: string,
): Promise<Array<{ id: string; file_path: string }>> {
  const r = await db.query<{ id: string; file_path: string }>(
    `SELECT s.id, s.file_path FROM sync_files s JOIN file_contents c ON c.id = s.content_id
      WHERE s.sync_id = $1 AND c.embedding IS NULL ORDER BY s.file_path`,
    [syncId],
  );
  return r.rows;
}

/**
 * The file embedding inputs a sync's write steps left in the step ledger (`embed_inputs` of their hand-offs), each
 * with its file record and whether its content has a vector already.
 */
export async function fileEmbedInputs(
  db: Queryable,
  syncId: string,
): Promise<Array<{ id: string; file_path: string; text: string; done: boolean }>> {
  const r = await db.query<{ id: string; file_path: string; text: string; done: boolean }>(
    `SELECT f.id, f.file_path, i.e ->> 1 AS text, f.embedding IS NOT NULL AS done
       FROM sync_steps s
      CROSS JOIN LATERAL jsonb_array_elements(s.handoff -> 'embed_inputs') AS i(e)
       JOIN file_records f ON f.id = (i.e ->> 0)::uuid
      WHERE s.sync_id = $1 AND s.step LIKE 'write %'
      ORDER BY s.step`,
    [syncId],
  );
  return r.rows;
}

/**
 * A sync's chunks and how many lack a vector. `fromLedger`: the total as the sync's write steps recorded it (else
 * counted: the fill of a completed sync, whose ledger may predate V17). Counting reads every chunk's row until a
 * vacuum marked the pages all-visible (0.2-0.3 s for the Go tree right after a sync); the ones without a vector go
 * through the partial index of V23, so a reused tree reads none of those pages.
 */
export async function chunkVectorCounts(
  db: Queryable,
  syncId: string,
  fromLedger: boolean,
): Promise<{ total: number; missing: number }> {
  const r = await db.query<{ total: number; missing: number }>(
    `SELECT coalesce(
              CASE WHEN $2::boolean THEN (SELECT sum((result ->> 'chunks')::int) FROM sync_steps
                                           WHERE sync_id = $1 AND step LIKE 'write %') END,
              (SELECT count(*) FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
                WHERE s.sync_id = $1))::int AS total,
            (SELECT count(*) FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
              WHERE s.sync_id = $1 AND k.embedding IS NULL)::int AS missing`,
    [syncId, fromLedger],
  );
  return r.rows[0] ?? { total: 0, missing: 0 };
}

export interface ChunkToEmbed {
  id: string;
  content: string;
  symbols: string[];
  file_path: string;
  chunk_index: number;
  /** No key vector yet (a chunk whose content vector alone was lost keeps its key vector). */
  needs_key: boolean;
}

/** The next page of a sync's chunks without a vector, after chunk id `after`, by id. */
export async function chunksWithoutVector(
  db: Queryable,
  syncId: string,
  after: string,
  limit: number,
): Promise<ChunkToEmbed[]> {
  const r = await db.query<ChunkToEmbed>(
    `SELECT k.id, k.content, k.symbols, s.file_path, k.chunk_index, k.key_embedding IS NULL AS needs_key
       FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
      WHERE s.sync_id = $1 AND k.embedding IS NULL AND k.id > $2
      ORDER BY k.id LIMIT $3`,
    [syncId, after, limit],
  );
  return r.rows;
}

/** A filled sync's stats.embeddings, recounted from what is still missing (inside the caller's transaction). */
export async function recountEmbeddingStats(
  db: Queryable,
  syncId: string,
  missing: { files: number; chunks: number },
  chunksEmbedded: number,
): Promise<void> {
  await db.query(
    `UPDATE sync_runs SET stats = jsonb_set(stats, '{embeddings}', coalesce(stats -> 'embeddings', '{}'::jsonb)
            || jsonb_build_object('files_failed', $2::int, 'chunks_failed', $3::int,
                                  'files_embedded', coalesce((stats -> 'files')::int, 0) - $2::int,
                                  'chunks_embedded', $4::int, 'skipped', false))
      WHERE id = $1`,
    [syncId, missing.files, missing.chunks, chunksEmbedded],
  );
}
