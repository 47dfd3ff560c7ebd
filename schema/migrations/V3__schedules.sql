-- Schedules: periodic syncs of a source, run as Temporal Schedules.
CREATE TABLE schedules (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  interval_minutes integer NOT NULL CHECK (interval_minutes > 0),
  config_overrides jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config_overrides) = 'object'),
  enabled boolean NOT NULL DEFAULT true,
  last_run_at timestamptz,
  next_run_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT schedules_source_interval_key UNIQUE (source_id, interval_minutes)
);
