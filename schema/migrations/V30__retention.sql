-- Retention of syncs and events (issue 30; docs/decisions.md "Retention").
--
-- sync_runs gains what retention needs to know about a run: whether an operator pinned it (never cleaned or purged
-- by retention) and when it was cleaned (a cleaned sync is purged RETENTION_PURGE_AFTER later, so reads that were
-- handed its id meanwhile find a `cleaned` sync rather than nothing).
ALTER TABLE sync_runs
  ADD COLUMN pinned boolean NOT NULL DEFAULT false,
  ADD COLUMN pinned_at timestamptz,
  ADD COLUMN cleaned_at timestamptz;
UPDATE sync_runs SET cleaned_at = coalesce(completed_at, created_at) WHERE status = 'cleaned';

-- Retention ranks each source's runs of one kind by age (completed; failed and cancelled) and finds cleaned runs
-- by the time they were cleaned.
CREATE INDEX sync_runs_retention ON sync_runs (source_id, status, created_at DESC, id DESC);
CREATE INDEX sync_runs_cleaned ON sync_runs (cleaned_at) WHERE status = 'cleaned';

-- The event stream's pruning watermark: every event row with id <= pruned_through may have been deleted. A client
-- resuming from an id below it is told it missed events (gateway/events/stream.ts); one row, written by the pruner.
CREATE TABLE events_pruned (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  pruned_through bigint NOT NULL,
  pruned_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_created ON events (created_at);

-- Per-sync tables that hold graph data besides the AGE labels (e.g. a sync's unresolved symbol uses): cleaning a
-- sync deletes their rows `WHERE sync_id = <sync>`; purge removes them through their foreign key's cascade. A
-- migration that adds such a table registers it here.
CREATE TABLE sync_graph_tables (
  relation regclass PRIMARY KEY
);
INSERT INTO sync_graph_tables (relation)
SELECT to_regclass(t) FROM unnest(ARRAY['sync_symbol_unresolved']) t WHERE to_regclass(t) IS NOT NULL;

-- Removes every vertex and edge of one sync, in every label of the graph (enumerated from ag_catalog, so labels
-- added later are covered without a new version of this function), and the sync's rows of the registered per-sync
-- graph tables. Returns the number of rows removed.
--
-- A sync's vertices: its File vertices (found through the File sync_id index), the vertices its File vertices'
-- edges reach that carry the same sync_id (Symbol vertices, through defines), and the vertices of any other vertex
-- label by their sync_id property. Its edges: every edge that starts or ends at one of those vertices, per label
-- through the label's start_id/end_id indexes. Symbol has no sync_id index (V20): the writers never leave a Symbol
-- vertex without the defines edge of its file.
CREATE OR REPLACE FUNCTION delete_sync_graph(p_sync_id uuid) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  key ag_catalog.agtype := ('"' || p_sync_id::text || '"')::ag_catalog.agtype;
  graph_oid oid := (SELECT graphid FROM ag_catalog.ag_graph WHERE name = 'service');
  file_ids ag_catalog.graphid[];
  reached ag_catalog.graphid[];
  vertex_ids ag_catalog.graphid[];
  lbl record;
  n bigint := 0;
  k bigint;
BEGIN
  SELECT coalesce(array_agg(id), '{}') INTO file_ids FROM service."File"
   WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = key;
  -- Vertices reached from the sync's files, other than files (defines -> Symbol), of the same sync.
  SELECT coalesce(array_agg(DISTINCT v.id), '{}') INTO reached
    FROM service._ag_label_edge e
    JOIN service._ag_label_vertex v ON v.id = e.end_id
   WHERE e.start_id = ANY (file_ids)
     AND ag_catalog.agtype_access_operator(v.properties, '"sync_id"'::ag_catalog.agtype) = key
     AND NOT v.id = ANY (file_ids);
  vertex_ids := file_ids || reached;
  -- Vertices of other labels (neither File nor Symbol) by their own sync_id property.
  FOR lbl IN
    SELECT l.name FROM ag_catalog.ag_label l
     WHERE l.graph = graph_oid AND l.kind = 'v' AND l.name NOT IN ('_ag_label_vertex', 'File', 'Symbol')
  LOOP
    EXECUTE format('SELECT coalesce(array_agg(id), ''{}'') FROM service.%I
                     WHERE ag_catalog.agtype_access_operator(properties, ''"sync_id"''::ag_catalog.agtype) = $1',
                   lbl.name)
      INTO reached USING key;
    vertex_ids := vertex_ids || reached;
  END LOOP;

  IF cardinality(vertex_ids) > 0 THEN
    FOR lbl IN
      SELECT l.name FROM ag_catalog.ag_label l
       WHERE l.graph = graph_oid AND l.kind = 'e' AND l.name <> '_ag_label_edge'
    LOOP
      EXECUTE format('DELETE FROM service.%I e USING unnest($1) AS v(id) WHERE e.start_id = v.id', lbl.name)
        USING vertex_ids;
      GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
      EXECUTE format('DELETE FROM service.%I e USING unnest($1) AS v(id) WHERE e.end_id = v.id', lbl.name)
        USING vertex_ids;
      GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
    END LOOP;
    FOR lbl IN
      SELECT l.name FROM ag_catalog.ag_label l
       WHERE l.graph = graph_oid AND l.kind = 'v' AND l.name <> '_ag_label_vertex'
    LOOP
      EXECUTE format('DELETE FROM service.%I x USING unnest($1) AS v(id) WHERE x.id = v.id', lbl.name)
        USING vertex_ids;
      GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
    END LOOP;
  END IF;

  FOR lbl IN SELECT relation FROM sync_graph_tables LOOP
    EXECUTE format('DELETE FROM %s WHERE sync_id = $1', lbl.relation) USING p_sync_id;
    GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  END LOOP;
  RETURN n;
END $$;
