-- An unchanged re-sync shares its predecessor's graph instead of copying it (issue 30, growth; docs/decisions.md
-- "An unchanged re-sync shares its predecessor's graph").
--
-- A sync of the same commit as its source's previous completed sync, analysed with the same analysis key, holding the
-- same files, writes its own file records (sync_files: ids, summaries, per-sync status) but no graph rows: its
-- graph_sync_id names the sync whose vertices, edges and registered per-sync graph tables (sync_graph_tables) are its
-- graph — the predecessor's own graph_sync_id when the predecessor shares one itself, so the chain is one hop.
-- Readers of a sync's graph read the rows of graph_sync_of(sync) instead of the sync's own.
--
-- Lifetime: a sync whose graph another sync shares keeps its graph rows while any sharing sync is not cleaned, even
-- when it is cleaned itself (its reads then answer as a cleaned sync's: graph_sync_of is NULL); purge deletes
-- sharing syncs before the sync they share (the foreign key refuses the other order).
ALTER TABLE sync_runs ADD COLUMN graph_sync_id uuid REFERENCES sync_runs (id);
CREATE INDEX sync_runs_graph_sync ON sync_runs (graph_sync_id) WHERE graph_sync_id IS NOT NULL;

-- The sync whose graph rows are `p_sync_id`'s graph: its own id, or the sync it shares; NULL for a cleaned sync (its
-- graph is gone for readers, even where the rows are still held for a sync sharing them) and an unknown one.
CREATE FUNCTION graph_sync_of(p_sync_id uuid) RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN status = 'cleaned' THEN NULL ELSE coalesce(graph_sync_id, id) END
    FROM sync_runs WHERE id = p_sync_id
$$;

-- Whether `p_sync_id`'s graph rows are still some other sync's graph (a sync that shares them and is not cleaned).
CREATE FUNCTION graph_shared(p_sync_id uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM sync_runs WHERE graph_sync_id = p_sync_id AND status <> 'cleaned')
$$;
