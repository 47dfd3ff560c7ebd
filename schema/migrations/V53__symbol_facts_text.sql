-- Symbol facts are stored as their JSON text, not jsonb (issue 28's speed target; docs/decisions.md "Symbol facts as
-- text").
--
-- Nothing reads into the facts inside the database: the writers send the JSON the engine made (made once on the
-- worker for the resolver thread and the write) and every reader parses it whole in Node. As jsonb, every full sync
-- paid PostgreSQL to build the binary form of each file's facts (~72 MB of JSON for the Go standard library:
-- ~6 s of the database's CPU at load 15 against ~0.4 s for text) and every read to print it back as text (3.3 s
-- against 0.7 s); the text also compresses smaller (lz4: 20 MB against 35 MB for the same rows).
ALTER TABLE symbol_facts ALTER COLUMN facts TYPE text USING facts::text;
DO $$
BEGIN
  ALTER TABLE symbol_facts ALTER COLUMN facts SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 compression is not supported by this server: symbol_facts keeps pglz';
END $$;
