-- A schedule command in flight (issue 10). A command never holds a database transaction while it calls Temporal:
-- a short transaction records its intent here and commits, Temporal is called with no connection held, and a second
-- short transaction applies the change to the schedules row and deletes the intent (or, when Temporal failed, the
-- Temporal schedule is put back as the row says and the intent is deleted). The schedules row is always the last
-- confirmed state; the intent row serialises commands on one schedule (one at a time: the primary key). An intent
-- marked abandoned (its undo failed) or older than the commands' bound (its process died between the phases) is
-- repaired by the next command on the schedule or by the ingestion component's periodic reconciler: Temporal is put
-- back as the row says (a create is undone: the row is deleted).
CREATE TABLE schedule_intents (
  schedule_id bigint PRIMARY KEY REFERENCES schedules (id) ON DELETE CASCADE,
  token uuid NOT NULL,
  operation text NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
  created_at timestamptz NOT NULL DEFAULT now(),
  abandoned_at timestamptz
);
