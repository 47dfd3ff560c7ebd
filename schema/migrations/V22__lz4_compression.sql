-- Large columns written by every sync are compressed with lz4 instead of pglz (issue 18; docs/decisions.md "Row
-- writes of a full sync").
--
-- A chunk row holds ~2 kB of content and ~1.4 kB of search terms kept in line (STORAGE MAIN, V13), so nearly every row
-- passes PostgreSQL's 2 kB toast threshold and has its content compressed on insert. pglz was ~25 µs of the
-- database's CPU per Go chunk (bench/write-cost.ts); lz4 compresses and decompresses several times faster, for a
-- slightly lower ratio. Rows written before keep their pglz values (both are read transparently); new values use lz4.
-- A server built without lz4 keeps pglz (the DO block below skips the change there).
DO $$
BEGIN
  ALTER TABLE file_content_chunks ALTER COLUMN content SET COMPRESSION lz4,
                                  ALTER COLUMN search_terms SET COMPRESSION lz4,
                                  ALTER COLUMN symbols SET COMPRESSION lz4;
  ALTER TABLE file_contents ALTER COLUMN symbols SET COMPRESSION lz4,
                            ALTER COLUMN imports SET COMPRESSION lz4,
                            ALTER COLUMN issues SET COMPRESSION lz4,
                            ALTER COLUMN exports SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 compression is not supported by this server: columns keep pglz';
END $$;
