-- Event rows: every state change the service reports. The id is the SSE event id. Writers insert the row and
-- pg_notify('service_sse', id) in one transaction. Rows are kept (no pruning) and outlive the sources they name.
CREATE TABLE events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type text NOT NULL,
  sync_id uuid,
  source_id uuid,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX events_sync ON events (sync_id) WHERE sync_id IS NOT NULL;
