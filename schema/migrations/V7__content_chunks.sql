-- Content chunks: AST-aware pieces of a file, each beginning with its breadcrumb header.
CREATE TABLE content_chunks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  file_id uuid NOT NULL REFERENCES file_records (id) ON DELETE CASCADE,
  sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
  chunk_index integer NOT NULL CHECK (chunk_index >= 0),
  content text NOT NULL,
  start_line integer NOT NULL CHECK (start_line >= 1),
  end_line integer NOT NULL CHECK (end_line >= start_line),
  token_count integer NOT NULL DEFAULT 0,
  language text NOT NULL DEFAULT '',
  chunk_type text NOT NULL CHECK (chunk_type IN ('function', 'method', 'class', 'interface', 'struct', 'enum', 'impl',
    'trait', 'module', 'namespace', 'heading', 'paragraph', 'line', 'block')),
  symbols text[] NOT NULL DEFAULT '{}',
  embedding vector,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT content_chunks_file_index_key UNIQUE (file_id, chunk_index)
);

CREATE INDEX content_chunks_sync ON content_chunks (sync_id);
CREATE INDEX content_chunks_content_fts ON content_chunks USING gin (to_tsvector('simple', content));
