-- The precise tier (issue 29; docs/precise.md).
--
-- precise_workers: what each precise worker declares it can run (its indexers and their versions), refreshed while it
--   runs. The sync's plan step reads it: a language with no live worker is skipped with a sync issue.
-- precise_results: one indexer's derived result for one commit of one source (edges between symbol refs, external
--   uses with their package monikers, the files the index covered), so a sync of an unchanged commit reuses it
--   without cloning or indexing. Keyed by the indexer's version and the settings that change its output.
CREATE TABLE precise_workers (
  identity text PRIMARY KEY,
  task_queues text[] NOT NULL,
  indexers jsonb NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  started_at timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE precise_results (
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  commit_sha text NOT NULL,
  language text NOT NULL,
  tool_key text NOT NULL,
  result jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, commit_sha, language, tool_key)
);
DO $$
BEGIN
  ALTER TABLE precise_results ALTER COLUMN result SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 compression is not supported by this server: precise_results keeps pglz';
END $$;
