-- A second vector per chunk for semantic chunk search (issue 32; docs/decisions.md "Key vectors beside the content's"):
-- the embedding of the chunk's key text, its defined names and its messages in words (engine/embedding.ts
-- chunkKeyInput: `continueAsNew` → "continue as new"; string literals with their format verbs dropped). Spec rule 7's
-- vector of the content is unchanged; semantic search reads both, each chunk at the nearer of its two.
-- NULL for a chunk with no names and no messages, and for chunks embedded before this version (their content vector
-- alone is searched). Written by the chunk embedding step with the content's vector.
ALTER TABLE file_content_chunks ADD COLUMN key_embedding vector(896);
CREATE INDEX file_content_chunks_key_embedding_hnsw ON file_content_chunks USING hnsw (key_embedding vector_cosine_ops);
-- The chunk view shows it too (added last, as a view allows; as V13 added search_terms).
CREATE OR REPLACE VIEW content_chunks AS
SELECT k.id, s.id AS file_id, s.sync_id, k.chunk_index, k.content, k.start_line, k.end_line, k.token_count,
       k.language, k.chunk_type, k.symbols, k.embedding, k.created_at, k.search_terms, k.key_embedding
  FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id;
