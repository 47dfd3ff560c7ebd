-- Indexes that make graph lookups by id, file_id and sync_id fast (AGE creates none), and the cascade that removes a
-- sync's vertices and edges when the sync (or its source) is deleted: foreign keys cannot reach AGE's label tables.
-- Each index here is paid for on every graph write (~5-10 us per row for an agtype expression index), so only the
-- lookups the service makes are indexed:
--   File vertices by graph id, file_id and sync_id; Symbol vertices by graph id and sync_id;
--   edges by start_id and end_id (neighbours in both directions). Edges of a sync are found through their start
--   vertex (an edge belongs to the sync of the File it starts from), not through an index on their own sync_id.
CREATE INDEX file_vertex_id ON service."File" USING btree (id);
CREATE INDEX file_vertex_file_id ON service."File" (ag_catalog.agtype_access_operator(properties, '"file_id"'::ag_catalog.agtype));
CREATE INDEX file_vertex_sync_id ON service."File" (ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype));

CREATE INDEX symbol_vertex_id ON service."Symbol" USING btree (id);
CREATE INDEX symbol_vertex_sync_id ON service."Symbol" (ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype));

CREATE INDEX depends_on_start ON service.depends_on USING btree (start_id);
CREATE INDEX depends_on_end ON service.depends_on USING btree (end_id);

CREATE INDEX defines_start ON service.defines USING btree (start_id);
CREATE INDEX defines_end ON service.defines USING btree (end_id);

-- Removes every vertex and edge of one sync. Used by clean and by the delete cascade below. Returns rows removed.
CREATE FUNCTION delete_sync_graph(p_sync_id uuid) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  key ag_catalog.agtype := ('"' || p_sync_id::text || '"')::ag_catalog.agtype;
  n bigint := 0;
  k bigint;
BEGIN
  DELETE FROM service.defines e USING service."File" f
   WHERE e.start_id = f.id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service.depends_on e USING service."File" f
   WHERE e.start_id = f.id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service."Symbol" WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service."File" WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  RETURN n;
END $$;

CREATE FUNCTION sync_runs_delete_graph() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT id FROM old_runs LOOP
    PERFORM delete_sync_graph(r.id);
  END LOOP;
  RETURN NULL;
END $$;

-- Fires for direct deletes (purge) and for cascades from a deleted source.
CREATE TRIGGER sync_runs_delete_graph AFTER DELETE ON sync_runs
  REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION sync_runs_delete_graph();
