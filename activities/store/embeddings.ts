/** Backfills embeddings into rows written earlier (file records, then chunks). */
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

/** `id` is the id of the shared chunk row (file_content_chunks.id). */
export async function setChunkEmbeddings(db: Queryable, pairs: readonly EmbeddingPair[]): Promise<number> {
  if (pairs.length === 0) return 0;
  const res = await db.query(
    `UPDATE file_content_chunks AS t SET embedding = v.e::vector
       FROM unnest($1::uuid[], $2::text[]) AS v(id, e)
      WHERE t.id = v.id`,
    [pairs.map((p) => p.id), pairs.map((p) => toVectorLiteral(p.embedding))],
  );
  return res.rowCount ?? 0;
}
