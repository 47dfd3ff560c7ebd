-- delete_sync_graph (V30) without its scans (issue 30). V30 found the sync's non-File vertices with one query over
-- the parent edge and vertex tables, which the planner ran as scans of every label with a many-element filter: ~8 s
-- to purge one Go standard library sync under load (and ~15 s for a sync with nothing left). Now each step is an
-- index probe per vertex (nested loops over unnest(ids), the planner's scans and hash joins switched off for these
-- statements only and restored after): per edge label, the edges starting at the sync's File vertices, returning
-- their ends that are not File vertices (the sync's Symbols, through defines); then per edge label the edges
-- starting at those; then the vertices by id. An edge belongs to the sync of its start vertex (docs/decisions.md
-- "Graph storage"), so there is no end_id pass.
CREATE OR REPLACE FUNCTION delete_sync_graph(p_sync_id uuid) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  key ag_catalog.agtype := ('"' || p_sync_id::text || '"')::ag_catalog.agtype;
  graph_oid oid := (SELECT graphid FROM ag_catalog.ag_graph WHERE name = 'service');
  file_label integer := (SELECT l.id FROM ag_catalog.ag_label l WHERE l.graph = graph_oid AND l.name = 'File');
  starts ag_catalog.graphid[];
  reached ag_catalog.graphid[] := '{}';
  more ag_catalog.graphid[];
  lbl record;
  n bigint := 0;
  k bigint;
  seqscan text := current_setting('enable_seqscan');
  hashjoin text := current_setting('enable_hashjoin');
  mergejoin text := current_setting('enable_mergejoin');
BEGIN
  SELECT coalesce(array_agg(id), '{}') INTO starts FROM service."File"
   WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = key;
  -- Vertices of labels other than File and Symbol, by their own sync_id property (none today: a scan).
  FOR lbl IN
    SELECT l.name FROM ag_catalog.ag_label l
     WHERE l.graph = graph_oid AND l.kind = 'v' AND l.name NOT IN ('_ag_label_vertex', 'File', 'Symbol')
  LOOP
    EXECUTE format('SELECT coalesce(array_agg(id), ''{}'') FROM service.%I
                     WHERE ag_catalog.agtype_access_operator(properties, ''"sync_id"''::ag_catalog.agtype) = $1',
                   lbl.name)
      INTO more USING key;
    starts := starts || more;
  END LOOP;

  IF cardinality(starts) > 0 THEN
    PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
            set_config('enable_mergejoin', 'off', true);
    FOR lbl IN
      SELECT l.name FROM ag_catalog.ag_label l
       WHERE l.graph = graph_oid AND l.kind = 'e' AND l.name <> '_ag_label_edge'
    LOOP
      EXECUTE format('WITH d AS (DELETE FROM service.%I e USING unnest($1) AS v(id) WHERE e.start_id = v.id
                                 RETURNING e.end_id)
                      SELECT count(*), coalesce(array_agg(d.end_id)
                                                  FILTER (WHERE ag_catalog._extract_label_id(d.end_id) <> $2), ''{}'')
                        FROM d', lbl.name)
        INTO k, more USING starts, file_label;
      n := n + k;
      reached := reached || more;
    END LOOP;
    IF cardinality(reached) > 0 THEN
      FOR lbl IN
        SELECT l.name FROM ag_catalog.ag_label l
         WHERE l.graph = graph_oid AND l.kind = 'e' AND l.name <> '_ag_label_edge'
      LOOP
        EXECUTE format('DELETE FROM service.%I e USING unnest($1) AS v(id) WHERE e.start_id = v.id', lbl.name)
          USING reached;
        GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
      END LOOP;
    END IF;
    FOR lbl IN
      SELECT l.name FROM ag_catalog.ag_label l
       WHERE l.graph = graph_oid AND l.kind = 'v' AND l.name <> '_ag_label_vertex'
    LOOP
      EXECUTE format('DELETE FROM service.%I x USING unnest($1) AS v(id) WHERE x.id = v.id', lbl.name)
        USING CASE WHEN lbl.name = 'File' THEN starts ELSE starts || reached END;
      GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
    END LOOP;
    PERFORM set_config('enable_seqscan', seqscan, true), set_config('enable_hashjoin', hashjoin, true),
            set_config('enable_mergejoin', mergejoin, true);
  END IF;

  FOR lbl IN SELECT relation FROM sync_graph_tables LOOP
    EXECUTE format('DELETE FROM %s WHERE sync_id = $1', lbl.relation) USING p_sync_id;
    GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  END LOOP;
  RETURN n;
END $$;
