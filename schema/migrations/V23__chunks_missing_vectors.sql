-- The chunks still without a vector, found without reading the others (issue 12).
--
-- embedChunks looks for the sync's chunks that have no embedding. Since V12 a sync's chunks are shared with the
-- syncs before it, so an incremental sync of an unchanged tree has every vector already, and finding that out read
-- every chunk row of the sync (CPython's standard library: 14,916 rows, ~40 ms; the Go tree's 54,271, ~0.25-0.4 s of
-- a ~3.5-4.5 s sync). A chunk enters this index when it is written (its vector comes later) and leaves it when its
-- vector is set (that update is never HOT: the HNSW index covers the column), so the index holds only the chunks a
-- running sync has still to embed, or that an outage left without a vector.
CREATE INDEX file_content_chunks_missing_vector ON file_content_chunks (content_id) WHERE embedding IS NULL;
