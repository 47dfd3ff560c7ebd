/** Backfills embeddings into rows written earlier (file records, then chunks). */
import { toVectorLiteral, type Queryable } from '../../lib/db.ts';

export interface EmbeddingPair {
  id: string;
  embedding: ArrayLike<number>;
}

async function backfill(
  db: Queryable,
  table: 'file_records' | 'content_chunks',
  pairs: readonly EmbeddingPair[],
): Promise<number> {
  if (pairs.length === 0) return 0;
  const res = await db.query(
    `UPDATE ${table} AS t SET embedding = v.e::vector
       FROM unnest($1::uuid[], $2::text[]) AS v(id, e)
      WHERE t.id = v.id`,
    [pairs.map((p) => p.id), pairs.map((p) => toVectorLiteral(p.embedding))],
  );
  return res.rowCount ?? 0;
}

export function setFileEmbeddings(db: Queryable, pairs: readonly EmbeddingPair[]): Promise<number> {
  return backfill(db, 'file_records', pairs);
}

export function setChunkEmbeddings(db: Queryable, pairs: readonly EmbeddingPair[]): Promise<number> {
  return backfill(db, 'content_chunks', pairs);
}
