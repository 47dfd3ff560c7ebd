-- Reads that do not slow with history (issue 30; docs/decisions.md "Reads and history"). A content is shared by every
-- sync holding it, so with N kept syncs of a source each content_id has N sync_files rows. Readers that go from a
-- chunk or symbol of a content to the searched syncs' file records (chunk and symbol search through the
-- content_chunks / file_records views: `content_id = ? AND sync_id = ANY(?)`) walked all N entries of the
-- content_id index and fetched each heap row to test its sync. Led by content_id, then the sync: the same lookups
-- (the contents' collection trigger reads content_id alone) find the searched sync's row in the index.
CREATE INDEX sync_files_content_sync ON sync_files (content_id, sync_id);
DROP INDEX sync_files_content;
