-- Symbol names are indexed once per file content, not once per sync (issue 12; docs/decisions.md "Search indexes").
--
-- A file's symbols are a function of its content (file_contents, shared by every sync holding the same path and
-- bytes since V12), so the rows symbol search reads live with the content: written by the sync only for new contents,
-- in the same statement as the content, and removed with it. The Symbol vertices stay per sync (the graph model),
-- but lose the two name indexes of V13: each of them cost every sync a second copy of every name (an incremental
-- sync of an unchanged tree copies all Symbol vertices), and symbol search read every kept sync's copy.

CREATE TABLE file_content_symbols (
  content_id uuid NOT NULL REFERENCES file_contents (id) ON DELETE CASCADE,
  -- Position in the content's symbol list (0-based): a symbol's identity within its content.
  ordinal integer NOT NULL,
  name text NOT NULL,
  kind text NOT NULL,
  line integer NOT NULL,
  PRIMARY KEY (content_id, ordinal)
);

-- Case-insensitive exact and prefix (btree, pattern ops) and fuzzy (trigrams) name lookups.
CREATE INDEX file_content_symbols_name ON file_content_symbols (lower(name) text_pattern_ops);
CREATE INDEX file_content_symbols_name_trgm ON file_content_symbols USING gin (lower(name) gin_trgm_ops);

-- Backfill from what symbol search read until now, the Symbol vertices: for each content, the vertices of one file
-- record holding it (the newest), in vertex order. (Contents written through the file_records view or before V12 have
-- no stored symbol list; the vertices are the only complete source.)
WITH v AS (
  SELECT s.id,
         ag_catalog.agtype_access_operator(s.properties, '"file_id"'::ag_catalog.agtype)::text AS file_id,
         ag_catalog.agtype_access_operator(s.properties, '"name"'::ag_catalog.agtype)::text AS name,
         ag_catalog.agtype_access_operator(s.properties, '"kind"'::ag_catalog.agtype)::text AS kind,
         ag_catalog.agtype_access_operator(s.properties, '"line"'::ag_catalog.agtype)::text AS line
    FROM service."Symbol" s
), holder AS (
  SELECT DISTINCT ON (f.content_id) f.content_id, f.id::text AS file_id
    FROM sync_files f
   WHERE f.id::text IN (SELECT file_id FROM v)
   ORDER BY f.content_id, f.created_at DESC, f.id
)
INSERT INTO file_content_symbols (content_id, ordinal, name, kind, line)
SELECT h.content_id, (row_number() OVER (PARTITION BY h.content_id ORDER BY v.id) - 1)::int, v.name,
       coalesce(v.kind, ''), CASE WHEN v.line ~ '^-?[0-9]{1,9}$' THEN v.line::int ELSE 0 END
  FROM holder h JOIN v ON v.file_id = h.file_id
 WHERE v.name IS NOT NULL;

DROP INDEX service.symbol_vertex_name;
DROP INDEX service.symbol_vertex_name_trgm;
DROP FUNCTION symbol_name_key(ag_catalog.agtype);

-- A sync's Symbol vertices are found through its File vertices' defines edges (as its edges are, docs/decisions.md
-- "Graph storage"), so the Symbol label needs no index on its sync_id: every other reader reaches symbols through a
-- File vertex. The writers never leave a Symbol vertex without its defines edge (activities/store/graph.ts).
DROP INDEX service.symbol_vertex_sync_id;

CREATE OR REPLACE FUNCTION delete_sync_graph(p_sync_id uuid) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  key ag_catalog.agtype := ('"' || p_sync_id::text || '"')::ag_catalog.agtype;
  n bigint := 0;
  k bigint;
BEGIN
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
