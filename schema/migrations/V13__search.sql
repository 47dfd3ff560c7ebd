-- Chunk and symbol search (docs/graph.md "Chunk search", "Symbol search"; docs/decisions.md "Search indexes").
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Lexical chunk search: identifier-aware terms computed by the chunk writer (lib/search-terms.ts) and stored as a
-- tsvector. This GIN index replaces the one over to_tsvector('simple', content): still a full-text index over the
-- content, but one that splits identifiers, and without PostgreSQL's text parser on the write path (~160 us per
-- chunk, docs/benchmarks.md). Rows written before this migration get PostgreSQL's parser over the content and its
-- camelCase-split copy, close to what the writer computes (snake_case identifiers lack their joined form until the
-- source's next sync).
-- Written for both chunk layouts: the table content_chunks (V7) or, when chunk rows are shared across syncs, the
-- base table file_content_chunks behind the content_chunks view.
DO $$
DECLARE
  tbl text := CASE WHEN to_regclass('public.file_content_chunks') IS NOT NULL THEN 'file_content_chunks'
                   ELSE 'content_chunks' END;
  idx record;
BEGIN
  EXECUTE format('ALTER TABLE %I ADD COLUMN search_terms tsvector', tbl);
  -- Kept in the row (compressed) rather than in the TOAST table: ranking reads the terms of up to 2,000 candidate
  -- chunks per query, and the out-of-line fetch doubled the backend's CPU per query (18-21 vs 9 ms, Go stdlib).
  EXECUTE format('ALTER TABLE %I ALTER COLUMN search_terms SET STORAGE MAIN', tbl);
  EXECUTE format($u$UPDATE %I SET search_terms = to_tsvector('simple',
            content || ' ' || regexp_replace(content, '([[:lower:][:digit:]])([[:upper:]])', '\1 \2', 'g'))$u$, tbl);
  -- Drop the GIN index over to_tsvector(content), whatever its name.
  FOR idx IN SELECT i.indexrelid::regclass AS name FROM pg_index i
              WHERE i.indrelid = tbl::regclass AND pg_get_indexdef(i.indexrelid) LIKE '%to_tsvector%' LOOP
    EXECUTE format('DROP INDEX %s', idx.name);
  END LOOP;
  EXECUTE format('CREATE INDEX %I ON %I USING gin (search_terms)', tbl || '_search_terms', tbl);
  -- Semantic chunk search: nearest neighbours by cosine distance, as file search does over file embeddings.
  EXECUTE format('CREATE INDEX %I ON %I USING hnsw (embedding vector_cosine_ops)', tbl || '_embedding_hnsw', tbl);
  -- Shared layout (V12): the content_chunks view shows the new column too (added last, as a view allows).
  IF tbl = 'file_content_chunks' THEN
    CREATE OR REPLACE VIEW content_chunks AS
    SELECT k.id, s.id AS file_id, s.sync_id, k.chunk_index, k.content, k.start_line, k.end_line, k.token_count,
           k.language, k.chunk_type, k.symbols, k.embedding, k.created_at, k.search_terms
      FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id;
  END IF;
END $$;

-- Symbol search by name: case-insensitive exact and prefix (btree, pattern ops) and fuzzy (trigrams) over the name
-- property of the Symbol vertices.
CREATE FUNCTION symbol_name_key(props ag_catalog.agtype) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN lower(ag_catalog.agtype_access_operator(props, '"name"'::ag_catalog.agtype)::text);
CREATE INDEX symbol_vertex_name ON service."Symbol" (symbol_name_key(properties) text_pattern_ops);
CREATE INDEX symbol_vertex_name_trgm ON service."Symbol" USING gin (symbol_name_key(properties) gin_trgm_ops);
