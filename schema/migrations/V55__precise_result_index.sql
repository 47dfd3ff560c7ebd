-- A changed commit reruns only the tsconfig projects its changes reach (issue 29 item 4; docs/precise.md
-- "Incremental"): a commit's stored precise result keeps, for scip-typescript, the index itself (index_bytes), the
-- commit's tree (index_tree: path -> blob id) and the index's layout (index_layout: per project the byte range of its
-- documents and the repository files of its program). A later commit takes the documents of the projects none of whose
-- program files changed from the newest such index of its source. NULL for the other indexers (they rerun whole).
-- Retention is the row's (V51): a cache, removing it costs a full run.
ALTER TABLE precise_results
  ADD COLUMN index_tree jsonb,
  ADD COLUMN index_layout jsonb,
  ADD COLUMN index_bytes bytea;
DO $$
BEGIN
  ALTER TABLE precise_results ALTER COLUMN index_bytes SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 compression is not supported by this server: precise_results.index_bytes keeps pglz';
END $$;
