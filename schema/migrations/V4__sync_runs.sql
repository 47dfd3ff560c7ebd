-- Sync runs: one snapshot of a source. At most one active (pending or running) run per source, enforced here.
CREATE TABLE sync_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  source_id uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled', 'cleaned')),
  config_snapshot jsonb NOT NULL DEFAULT '{}'::jsonb,
  ref text,
  progress_done integer NOT NULL DEFAULT 0,
  progress_total integer NOT NULL DEFAULT 0,
  progress_meta jsonb NOT NULL DEFAULT '{}'::jsonb,
  stats jsonb NOT NULL DEFAULT '{}'::jsonb,
  schedule_id bigint REFERENCES schedules (id) ON DELETE SET NULL,
  triggered_by text,
  -- Why a run failed or was cancelled, for people (not in the spec's field list; see docs/decisions.md).
  error text,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX sync_runs_one_active_per_source ON sync_runs (source_id) WHERE status IN ('pending', 'running');
CREATE INDEX sync_runs_source_created ON sync_runs (source_id, created_at DESC, id DESC);
CREATE INDEX sync_runs_created ON sync_runs (created_at DESC, id DESC);
CREATE INDEX sync_runs_schedule ON sync_runs (schedule_id) WHERE schedule_id IS NOT NULL;

ALTER TABLE sources
  ADD CONSTRAINT sources_last_sync_fkey FOREIGN KEY (last_sync_id) REFERENCES sync_runs (id) ON DELETE SET NULL;
