-- File records: one per file per sync.
CREATE TABLE file_records (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  file_path text NOT NULL,
  name text NOT NULL,
  type text NOT NULL CHECK (type IN ('source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service')),
  domain text NOT NULL DEFAULT '',
  language text NOT NULL DEFAULT '',
  size_bytes integer NOT NULL DEFAULT 0,
  line_count integer NOT NULL DEFAULT 0,
  imports_count integer NOT NULL DEFAULT 0,
  description text,
  description_generated_at timestamptz,
  exports text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'healthy',
  embedding vector,
  content_hash char(64) NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  last_commit_sha text,
  last_commit_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT file_records_sync_path_key UNIQUE (sync_id, file_path)
);

CREATE INDEX file_records_source_path ON file_records (source_id, file_path);
CREATE INDEX file_records_sync_type ON file_records (sync_id, type);
