-- Retention of the precise tier's stored results (issue 29 with issue 30; docs/precise.md, docs/decisions.md).
--
-- precise_results is keyed by (source, commit), not by sync, so it is not a per-sync graph table (sync_graph_tables):
-- a result serves every later sync of the same commit. It is a cache: removing one costs a re-index, never a graph.
-- When runs are deleted (purge, by retention or an operator), a source's results created before its oldest remaining
-- run are removed (all of them when no run remains): no kept sync can have written them, and a sync of such an old
-- commit indexes again. The source's own deletion cascades through the foreign key (V45).
CREATE INDEX precise_results_source_created ON precise_results (source_id, created_at);

CREATE FUNCTION sync_runs_delete_precise_results() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM precise_results p
   USING (SELECT DISTINCT source_id FROM old_runs) o
   WHERE p.source_id = o.source_id
     AND p.created_at < coalesce((SELECT min(r.created_at) FROM sync_runs r WHERE r.source_id = o.source_id),
                                 'infinity'::timestamptz);
  RETURN NULL;
END $$;

CREATE TRIGGER sync_runs_delete_precise_results AFTER DELETE ON sync_runs
  REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION sync_runs_delete_precise_results();
