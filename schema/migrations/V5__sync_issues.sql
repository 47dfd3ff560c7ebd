-- Sync issues, capped at 1000 per sync by the database itself: a counter on the run, taken under the run's row lock,
-- so concurrent writers can never pass the cap. Inserts beyond it are silently skipped (the counter says how many).
CREATE TABLE sync_issues (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
  level text NOT NULL CHECK (level IN ('info', 'warning', 'error')),
  phase text NOT NULL,
  code text NOT NULL,
  message text NOT NULL,
  context jsonb NOT NULL DEFAULT '{}'::jsonb,
  occurred_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sync_issues_sync ON sync_issues (sync_id, id);

ALTER TABLE sync_runs
  ADD COLUMN issues_recorded integer NOT NULL DEFAULT 0,
  ADD COLUMN issues_dropped integer NOT NULL DEFAULT 0;

CREATE FUNCTION sync_issues_cap() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ok boolean;
BEGIN
  UPDATE sync_runs SET issues_recorded = issues_recorded + 1
   WHERE id = NEW.sync_id AND issues_recorded < 1000
  RETURNING true INTO ok;
  IF ok THEN
    RETURN NEW;
  END IF;
  UPDATE sync_runs SET issues_dropped = issues_dropped + 1 WHERE id = NEW.sync_id;
  RETURN NULL;
END $$;

CREATE TRIGGER sync_issues_cap BEFORE INSERT ON sync_issues FOR EACH ROW EXECUTE FUNCTION sync_issues_cap();
