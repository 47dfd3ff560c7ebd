-- The symbol graph (issue 28; docs/graph.md "Symbol graph", docs/decisions.md "Symbol graph storage").
--
-- What a file's content alone determines is stored once per content and shared by every sync and source holding it:
--   symbol_facts          the engine's per-file symbol facts (definitions with keys, uses, supertypes, import
--                         bindings), one row per (content hash, language, analysis key): a re-sync of an unchanged
--                         file reads them instead of parsing the file again;
--   file_content_symbols  gains each symbol's stable key, finer kind, end line, signature and doc comment (the
--                         signature and doc live here only, not in every sync's Symbol vertex).
-- What depends on the whole tree is per sync, kept lean:
--   edges calls, inherits, implements, overrides, references (Symbol -> Symbol) in the AGE graph, like depends_on,
--   indexed by start and end vertex (a sync's edges are found through its File vertices' defines edges);
--   sync_symbol_unresolved: per sync and file, a pointer to the content-addressed set of the file's unresolved uses
--   (symbol_unresolved_sets), so an unchanged re-sync adds one narrow row per file that has any, not the uses.

SELECT ag_catalog.create_elabel('service', 'calls');
SELECT ag_catalog.create_elabel('service', 'inherits');
SELECT ag_catalog.create_elabel('service', 'implements');
SELECT ag_catalog.create_elabel('service', 'overrides');
SELECT ag_catalog.create_elabel('service', 'references');

CREATE INDEX calls_start ON service.calls USING btree (start_id);
CREATE INDEX calls_end ON service.calls USING btree (end_id);
CREATE INDEX inherits_start ON service.inherits USING btree (start_id);
CREATE INDEX inherits_end ON service.inherits USING btree (end_id);
CREATE INDEX implements_start ON service.implements USING btree (start_id);
CREATE INDEX implements_end ON service.implements USING btree (end_id);
CREATE INDEX overrides_start ON service.overrides USING btree (start_id);
CREATE INDEX overrides_end ON service.overrides USING btree (end_id);
CREATE INDEX references_start ON service."references" USING btree (start_id);
CREATE INDEX references_end ON service."references" USING btree (end_id);

ALTER TABLE file_content_symbols
  ADD COLUMN key text,
  ADD COLUMN symbol_kind text,
  ADD COLUMN end_line integer,
  ADD COLUMN signature text,
  ADD COLUMN doc text;

CREATE TABLE symbol_facts (
  content_hash char(64) NOT NULL,
  language text NOT NULL,
  analysis_key text NOT NULL,
  facts jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (content_hash, language, analysis_key)
);
DO $$
BEGIN
  ALTER TABLE symbol_facts ALTER COLUMN facts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 compression is not supported by this server: symbol_facts keeps pglz';
END $$;

-- Facts no file content refers to any more are removed with the last such content.
CREATE INDEX file_contents_content_hash ON file_contents (content_hash);
CREATE FUNCTION file_contents_collect_facts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM symbol_facts f
   USING (SELECT DISTINCT content_hash FROM old_contents) o
   WHERE f.content_hash = o.content_hash
     AND NOT EXISTS (SELECT 1 FROM file_contents c WHERE c.content_hash = o.content_hash);
  RETURN NULL;
END $$;
CREATE TRIGGER file_contents_collect_facts AFTER DELETE ON file_contents
  REFERENCING OLD TABLE AS old_contents FOR EACH STATEMENT EXECUTE FUNCTION file_contents_collect_facts();

-- A file's unresolved uses in one sync ([{from, kind, text, line, reason}], sorted), content-addressed by the
-- SHA-256 of their canonical JSON: identical sets (an unchanged file in an unchanged tree) are stored once.
CREATE TABLE symbol_unresolved_sets (
  hash bytea PRIMARY KEY,
  uses jsonb NOT NULL
);
DO $$
BEGIN
  ALTER TABLE symbol_unresolved_sets ALTER COLUMN uses SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 compression is not supported by this server: symbol_unresolved_sets keeps pglz';
END $$;

CREATE TABLE sync_symbol_unresolved (
  sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
  file_path text NOT NULL,
  set_hash bytea NOT NULL,
  -- How many uses the set holds (so a read can say "lower bound" without reading the set).
  uses integer NOT NULL,
  PRIMARY KEY (sync_id, file_path)
);
CREATE INDEX sync_symbol_unresolved_set ON sync_symbol_unresolved (set_hash);

CREATE FUNCTION sync_symbol_unresolved_collect() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM symbol_unresolved_sets u
   USING (SELECT DISTINCT set_hash FROM old_rows) o
   WHERE u.hash = o.set_hash
     AND NOT EXISTS (SELECT 1 FROM sync_symbol_unresolved s WHERE s.set_hash = o.set_hash);
  RETURN NULL;
END $$;
CREATE TRIGGER sync_symbol_unresolved_collect AFTER DELETE ON sync_symbol_unresolved
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_symbol_unresolved_collect();

-- A sync's graph now includes its symbol edges (removed first: they hang off its Symbol vertices) and its unresolved
-- uses (a cleaned sync keeps its file records, not its graph).
CREATE OR REPLACE FUNCTION delete_sync_graph(p_sync_id uuid) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  key ag_catalog.agtype := ('"' || p_sync_id::text || '"')::ag_catalog.agtype;
  n bigint := 0;
  k bigint;
BEGIN
  -- Every symbol edge starts at a Symbol vertex of its own sync: found through the sync's File vertices' defines.
  DELETE FROM service.calls e USING service."File" f JOIN service.defines d ON d.start_id = f.id
   WHERE e.start_id = d.end_id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service.inherits e USING service."File" f JOIN service.defines d ON d.start_id = f.id
   WHERE e.start_id = d.end_id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service.implements e USING service."File" f JOIN service.defines d ON d.start_id = f.id
   WHERE e.start_id = d.end_id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service.overrides e USING service."File" f JOIN service.defines d ON d.start_id = f.id
   WHERE e.start_id = d.end_id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service."references" e USING service."File" f JOIN service.defines d ON d.start_id = f.id
   WHERE e.start_id = d.end_id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM sync_symbol_unresolved WHERE sync_id = p_sync_id;
  WITH f AS (
    SELECT id FROM service."File"
     WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = key
  ), d AS (
    DELETE FROM service.defines e USING f WHERE e.start_id = f.id RETURNING e.end_id
  ), s AS (
    DELETE FROM service."Symbol" s USING d WHERE s.id = d.end_id RETURNING 1
  )
  SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM s) INTO k;
  n := n + k;
  DELETE FROM service.depends_on e USING service."File" f
   WHERE e.start_id = f.id AND ag_catalog.agtype_access_operator(f.properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  DELETE FROM service."File" WHERE ag_catalog.agtype_access_operator(properties, '"sync_id"'::ag_catalog.agtype) = key;
  GET DIAGNOSTICS k = ROW_COUNT; n := n + k;
  RETURN n;
END $$;
