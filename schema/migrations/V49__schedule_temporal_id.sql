-- The Temporal schedule a schedules row stands for, by id (issue 31: ids that name the repository, e.g.
-- `sched-golang-encoding-json-5`). Set once when the row is made and never changed (a renamed source keeps its
-- schedule's id). NULL: a row made before this migration, whose Temporal schedule is still `<prefix><id>`; the
-- ingestion component's watcher renames it (creates the named schedule as the row says, deletes the old one).
ALTER TABLE schedules ADD COLUMN temporal_id text;
CREATE UNIQUE INDEX schedules_temporal_id_key ON schedules (temporal_id);
