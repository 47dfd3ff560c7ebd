-- Lexical chunk search ranks with rarity (issue 32; docs/decisions.md "Ranking with rarity"): BM25 needs, per
-- searched sync, how many chunks it has, their mean length and, per term, in how many chunks the term occurs.
--
-- One row per sync, written when the sync completes (activities/sync/search-stats.ts) and removed with it: cleaning
-- deletes the sync's rows of every table registered in sync_graph_tables, purge through the foreign key's cascade.
--
-- Document frequencies are estimated from a sample of the sync's files (whole files, chosen by their content id, so
-- unchanged files stay in or out of the sample from one sync to the next) and kept only for terms found in at least
-- a few sampled chunks: the terms that are common enough for the estimate to matter. A term that is not listed is
-- rare (the search takes it to be in half as many chunks as the least listed one). A re-sync that changed few files
-- takes over its previous sync's row (`changed_files` adds up what changed since the row was computed from chunks).
CREATE TABLE sync_search_stats (
  sync_id uuid PRIMARY KEY REFERENCES sync_runs (id) ON DELETE CASCADE,
  -- Chunks of the sync and their mean token count (BM25's document count and average document length).
  chunks integer NOT NULL,
  avg_tokens real NOT NULL,
  -- Chunks read for the frequencies (all of them in a small sync).
  sampled integer NOT NULL,
  -- Terms (lexemes of content_chunks.search_terms) and their estimated number of chunks, most common first.
  terms text[] NOT NULL,
  dfs integer[] NOT NULL,
  -- The sync whose chunks these figures were computed from (this one, or an earlier sync of the source whose row a
  -- re-sync took over) and how many files changed, were added or removed since.
  computed_from uuid NOT NULL,
  changed_files integer NOT NULL DEFAULT 0,
  computed_at timestamptz NOT NULL DEFAULT now(),
  CHECK (cardinality(terms) = cardinality(dfs))
);
ALTER TABLE sync_search_stats ALTER COLUMN terms SET COMPRESSION lz4, ALTER COLUMN dfs SET COMPRESSION lz4;

INSERT INTO sync_graph_tables (relation) VALUES ('sync_search_stats'::regclass);

-- Computes a sync's row from its chunks: counts and mean length over all of them, frequencies over a sample of about
-- p_sample chunks (files whose content id's first byte is below a bound), scaled to the whole sync; terms found in
-- fewer than p_min_df sampled chunks are left out. Replaces the sync's row.
CREATE FUNCTION compute_sync_search_stats(p_sync_id uuid, p_sample integer, p_min_df integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  avg_len real;
  bound integer;
  m integer;
BEGIN
  SELECT count(*), coalesce(avg(k.token_count), 0) INTO n, avg_len
    FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
   WHERE s.sync_id = p_sync_id;
  -- Of 256 buckets (the content id's first byte), as many as give about p_sample chunks.
  bound := least(256, greatest(1, ceil(256.0 * p_sample / greatest(n, 1))::integer));
  SELECT count(*) INTO m
    FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id
   WHERE s.sync_id = p_sync_id AND get_byte(uuid_send(s.content_id), 0) < bound;
  DELETE FROM sync_search_stats WHERE sync_id = p_sync_id;
  INSERT INTO sync_search_stats (sync_id, chunks, avg_tokens, sampled, terms, dfs, computed_from)
  SELECT p_sync_id, n, avg_len, m,
         coalesce(array_agg(t.lexeme ORDER BY t.df DESC, t.lexeme), '{}'),
         coalesce(array_agg(least(n, round(t.df::float8 * n / greatest(m, 1)))::integer ORDER BY t.df DESC, t.lexeme),
                  '{}'),
         p_sync_id
    FROM (SELECT u.lexeme, count(*) AS df
            FROM sync_files s JOIN file_content_chunks k ON k.content_id = s.content_id,
                 unnest(tsvector_to_array(k.search_terms)) AS u(lexeme)
           WHERE s.sync_id = p_sync_id AND get_byte(uuid_send(s.content_id), 0) < bound
           GROUP BY u.lexeme
          HAVING count(*) >= p_min_df) t;
END $$;

-- Completed syncs of before this version get their row now (searches of a sync without one rank without rarity).
SELECT compute_sync_search_stats(r.id, 5000, 3) FROM sync_runs r WHERE r.status = 'completed';
