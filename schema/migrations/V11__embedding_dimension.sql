-- Fixes the embedding dimension at 896 (the code-embedding model's) and adds the approximate-nearest-neighbour index
-- that file search uses (cosine distance). Chunk embeddings are stored but read by no endpoint: no index for them.
ALTER TABLE file_records ALTER COLUMN embedding TYPE vector(896);
ALTER TABLE content_chunks ALTER COLUMN embedding TYPE vector(896);
CREATE INDEX file_records_embedding_hnsw ON file_records USING hnsw (embedding vector_cosine_ops);
