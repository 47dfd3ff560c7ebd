-- A graph that other syncs share is never deleted under them (issue 30; docs/decisions.md "An unchanged re-sync
-- shares its predecessor's graph").
--
-- Since V50 an unchanged re-sync reads its predecessor's graph rows (sync_runs.graph_sync_id). Every path that
-- removes a sync's graph goes through delete_sync_graph: clean (lib/sync-runs/removal.ts), a run's reset at its first
-- clone (activities/sync/reset.ts), the graph write's own start (activities/store/graph.ts) and the purge trigger.
-- Clean and purge already check for sharers; the others did not. delete_sync_graph now refuses, with SQLSTATE
-- 55006 (object_in_use) naming the sharers, to delete the graph of a sync that a sync not cleaned shares: the
-- caller's transaction rolls back and nothing of the shared graph is lost. A cleaned sharer reads no graph
-- (graph_sync_of is NULL for it), so it does not hold the rows.
--
-- The body that deletes the rows is V47's, renamed; a later migration that changes how rows are deleted replaces
-- delete_sync_graph_rows and keeps this guard.
ALTER FUNCTION delete_sync_graph(uuid) RENAME TO delete_sync_graph_rows;

CREATE FUNCTION delete_sync_graph(p_sync_id uuid) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  sharers text;
BEGIN
  SELECT string_agg(id::text, ', ' ORDER BY created_at, id) INTO sharers
    FROM sync_runs WHERE graph_sync_id = p_sync_id AND status <> 'cleaned';
  IF sharers IS NOT NULL THEN
    RAISE EXCEPTION 'the graph of sync % is shared by syncs %: it is not deleted while they are kept', p_sync_id, sharers
      USING ERRCODE = 'object_in_use';
  END IF;
  RETURN delete_sync_graph_rows(p_sync_id);
END $$;
