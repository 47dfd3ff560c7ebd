-- Incremental syncs share what a file's path and bytes determine, instead of copying it into every sync.
--
--   file_contents        one row per analysed (source, path, content): the file record's content-derived fields,
--                        the file embedding, and the parse results a later sync needs to reuse the file without
--                        parsing it again (symbols, raw imports, the engine's per-file issues).
--   file_content_chunks  the chunks of one file_contents row, with their embeddings and the full-text index.
--   sync_files           one row per file per sync: what belongs to the sync (ids, commit, cached summary).
--
-- `file_records` and `content_chunks` keep their specification shape as views over these tables, so every reader
-- keeps its queries; INSTEAD OF triggers keep direct writes through the views working (tests, tools). A sync that
-- reuses a file writes one narrow sync_files row for it: no chunk rows, no full-text index entries, no vector.
-- See docs/decisions.md ("Incremental syncs: shared file contents").

-- The new tables take over the old unique keys' names (tests and tools match on them).
ALTER TABLE file_records RENAME CONSTRAINT file_records_sync_path_key TO file_records_v11_sync_path_key;
ALTER TABLE content_chunks RENAME CONSTRAINT content_chunks_file_index_key TO content_chunks_v11_file_index_key;

CREATE TABLE file_contents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  file_path text NOT NULL,
  content_hash char(64) NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
  -- Which engine and options produced the analysis ('' = unknown: never reused, e.g. rows written through the view).
  analysis_key text NOT NULL DEFAULT '',
  name text NOT NULL,
  type text NOT NULL CHECK (type IN ('source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service')),
  domain text NOT NULL DEFAULT '',
  language text NOT NULL DEFAULT '',
  size_bytes integer NOT NULL DEFAULT 0,
  line_count integer NOT NULL DEFAULT 0,
  imports_count integer NOT NULL DEFAULT 0,
  exports text[] NOT NULL DEFAULT '{}',
  is_binary boolean NOT NULL DEFAULT false,
  symbols jsonb NOT NULL DEFAULT '[]',
  imports jsonb NOT NULL DEFAULT '[]',
  issues jsonb NOT NULL DEFAULT '[]',
  embedding vector(896),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX file_contents_source_path ON file_contents (source_id, file_path);
CREATE INDEX file_contents_embedding_hnsw ON file_contents USING hnsw (embedding vector_cosine_ops);

CREATE TABLE sync_files (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  file_path text NOT NULL,
  content_id uuid NOT NULL REFERENCES file_contents (id) ON DELETE CASCADE,
  description text,
  description_generated_at timestamptz,
  status text NOT NULL DEFAULT 'healthy',
  last_commit_sha text,
  last_commit_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT file_records_sync_path_key UNIQUE (sync_id, file_path)
);
CREATE INDEX sync_files_source_path ON sync_files (source_id, file_path);
CREATE INDEX sync_files_content ON sync_files (content_id);

CREATE TABLE file_content_chunks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  content_id uuid NOT NULL REFERENCES file_contents (id) ON DELETE CASCADE,
  chunk_index integer NOT NULL CHECK (chunk_index >= 0),
  content text NOT NULL,
  start_line integer NOT NULL CHECK (start_line >= 1),
  end_line integer NOT NULL CHECK (end_line >= start_line),
  token_count integer NOT NULL DEFAULT 0,
  language text NOT NULL DEFAULT '',
  chunk_type text NOT NULL CHECK (chunk_type IN ('function', 'method', 'class', 'interface', 'struct', 'enum', 'impl',
    'trait', 'module', 'namespace', 'heading', 'paragraph', 'line', 'block')),
  symbols text[] NOT NULL DEFAULT '{}',
  embedding vector(896),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT content_chunks_file_index_key UNIQUE (content_id, chunk_index)
);

-- Move the rows of V6/V7 over (a file record becomes its own content row; nothing is known of its parse results,
-- so analysis_key stays '' and the next sync of each source is a full one).
INSERT INTO file_contents (id, source_id, file_path, content_hash, name, type, domain, language, size_bytes, line_count,
                           imports_count, exports, embedding, created_at)
SELECT id, source_id, file_path, content_hash, name, type, domain, language, size_bytes, line_count, imports_count,
       exports, embedding, created_at
  FROM file_records;
INSERT INTO sync_files (id, sync_id, source_id, file_path, content_id, description, description_generated_at, status,
                        last_commit_sha, last_commit_at, created_at)
SELECT id, sync_id, source_id, file_path, id, description, description_generated_at, status, last_commit_sha,
       last_commit_at, created_at
  FROM file_records;
INSERT INTO file_content_chunks (id, content_id, chunk_index, content, start_line, end_line, token_count, language,
                                 chunk_type, symbols, embedding, created_at)
SELECT id, file_id, chunk_index, content, start_line, end_line, token_count, language, chunk_type, symbols, embedding,
       created_at
  FROM content_chunks;
DROP TABLE content_chunks;
DROP TABLE file_records;

CREATE INDEX content_chunks_content_fts ON file_content_chunks USING gin (to_tsvector('simple', content));

-- The specification's shapes, column for column.
CREATE VIEW file_records AS
SELECT s.id, s.sync_id, s.source_id, s.file_path, c.name, c.type, c.domain, c.language, c.size_bytes, c.line_count,
       c.imports_count, s.description, s.description_generated_at, c.exports, s.status, c.embedding, c.content_hash,
       s.last_commit_sha, s.last_commit_at, s.created_at
  FROM sync_files s JOIN file_contents c ON c.id = s.content_id;

-- A chunk's id is its shared row's id (indexed): the same chunk in two syncs of a source has one id, with each
-- sync's file_id and sync_id. Readers that look chunks up by id also filter by sync.
CREATE VIEW content_chunks AS
SELECT k.id, s.id AS file_id, s.sync_id, k.chunk_index,
       k.content, k.start_line, k.end_line, k.token_count, k.language, k.chunk_type, k.symbols, k.embedding,
       k.created_at
  FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id;

-- Writes through the views.
CREATE FUNCTION file_records_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cid uuid;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO file_contents (source_id, file_path, content_hash, name, type, domain, language, size_bytes,
                               line_count, imports_count, exports, embedding)
    VALUES (NEW.source_id, NEW.file_path, NEW.content_hash, NEW.name, NEW.type, coalesce(NEW.domain, ''),
            coalesce(NEW.language, ''), coalesce(NEW.size_bytes, 0), coalesce(NEW.line_count, 0),
            coalesce(NEW.imports_count, 0), coalesce(NEW.exports, '{}'), NEW.embedding)
    RETURNING id INTO cid;
    INSERT INTO sync_files (id, sync_id, source_id, file_path, content_id, description, description_generated_at,
                            status, last_commit_sha, last_commit_at, created_at)
    VALUES (coalesce(NEW.id, gen_random_uuid()), NEW.sync_id, NEW.source_id, NEW.file_path, cid, NEW.description,
            NEW.description_generated_at, coalesce(NEW.status, 'healthy'), NEW.last_commit_sha, NEW.last_commit_at,
            coalesce(NEW.created_at, now()))
    RETURNING id, status, created_at INTO NEW.id, NEW.status, NEW.created_at;
    NEW.domain := coalesce(NEW.domain, '');
    NEW.language := coalesce(NEW.language, '');
    NEW.size_bytes := coalesce(NEW.size_bytes, 0);
    NEW.line_count := coalesce(NEW.line_count, 0);
    NEW.imports_count := coalesce(NEW.imports_count, 0);
    NEW.exports := coalesce(NEW.exports, '{}');
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE sync_files SET file_path = NEW.file_path, description = NEW.description,
           description_generated_at = NEW.description_generated_at, status = NEW.status,
           last_commit_sha = NEW.last_commit_sha, last_commit_at = NEW.last_commit_at
     WHERE id = OLD.id;
    -- Content-derived fields are shared by every sync holding this content.
    UPDATE file_contents c SET name = NEW.name, type = NEW.type, domain = NEW.domain, language = NEW.language,
           size_bytes = NEW.size_bytes, line_count = NEW.line_count, imports_count = NEW.imports_count,
           exports = NEW.exports, embedding = NEW.embedding, content_hash = NEW.content_hash
      FROM sync_files s
     WHERE s.id = OLD.id AND c.id = s.content_id
       AND ((c.name, c.type, c.domain, c.language, c.size_bytes, c.line_count, c.imports_count, c.exports,
             c.content_hash) IS DISTINCT FROM (NEW.name, NEW.type, NEW.domain, NEW.language, NEW.size_bytes,
             NEW.line_count, NEW.imports_count, NEW.exports, NEW.content_hash::char(64))
            OR c.embedding IS DISTINCT FROM NEW.embedding);
    RETURN NEW;
  ELSE
    DELETE FROM sync_files WHERE id = OLD.id;
    RETURN OLD;
  END IF;
END $$;

CREATE TRIGGER file_records_write INSTEAD OF INSERT OR UPDATE OR DELETE ON file_records
  FOR EACH ROW EXECUTE FUNCTION file_records_write();

CREATE FUNCTION content_chunks_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cid uuid;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT content_id INTO cid FROM sync_files WHERE id = NEW.file_id;
    IF cid IS NULL THEN
      RAISE foreign_key_violation USING MESSAGE = format('file record %s does not exist', NEW.file_id),
        CONSTRAINT = 'content_chunks_file_id_fkey';
    END IF;
    INSERT INTO file_content_chunks (content_id, chunk_index, content, start_line, end_line, token_count, language,
                                     chunk_type, symbols, embedding)
    VALUES (cid, NEW.chunk_index, NEW.content, NEW.start_line, NEW.end_line, coalesce(NEW.token_count, 0),
            coalesce(NEW.language, ''), NEW.chunk_type, coalesce(NEW.symbols, '{}'), NEW.embedding)
    RETURNING id, created_at INTO NEW.id, NEW.created_at;
    SELECT sync_id INTO NEW.sync_id FROM sync_files WHERE id = NEW.file_id;
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE file_content_chunks k SET content = NEW.content, start_line = NEW.start_line, end_line = NEW.end_line,
           token_count = NEW.token_count, language = NEW.language, chunk_type = NEW.chunk_type,
           symbols = NEW.symbols, embedding = NEW.embedding
      FROM sync_files s
     WHERE s.id = OLD.file_id AND k.content_id = s.content_id AND k.chunk_index = OLD.chunk_index;
    RETURN NEW;
  ELSE
    DELETE FROM file_content_chunks k USING sync_files s
     WHERE s.id = OLD.file_id AND k.content_id = s.content_id AND k.chunk_index = OLD.chunk_index;
    RETURN OLD;
  END IF;
END $$;

CREATE TRIGGER content_chunks_write INSTEAD OF INSERT OR UPDATE OR DELETE ON content_chunks
  FOR EACH ROW EXECUTE FUNCTION content_chunks_write();

-- A content no sync refers to any more (its syncs were purged, or an attempt was reset) is removed with its chunks.
-- (The same function serves updates: a transition table allows one event per trigger.)
CREATE FUNCTION sync_files_collect_contents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM file_contents c
   USING (SELECT DISTINCT content_id FROM old_files) o
   WHERE c.id = o.content_id
     AND NOT EXISTS (SELECT 1 FROM sync_files s WHERE s.content_id = o.content_id);
  RETURN NULL;
END $$;

CREATE TRIGGER sync_files_collect_contents AFTER DELETE ON sync_files
  REFERENCING OLD TABLE AS old_files FOR EACH STATEMENT EXECUTE FUNCTION sync_files_collect_contents();

-- A file record rewritten to another content (an activity writing the same sync twice) leaves its old one behind.
CREATE TRIGGER sync_files_collect_replaced AFTER UPDATE ON sync_files
  REFERENCING OLD TABLE AS old_files FOR EACH STATEMENT EXECUTE FUNCTION sync_files_collect_contents();
