-- The ledger of a sync's idempotent steps (docs/pipeline.md): one row per step that wrote something (`write 0007`,
-- `resolve`), inserted in the same transaction as what the step wrote. So a step is all there or not at all, and a
-- repeated step (an activity retry, a sync resumed after its worker died, an operator's Reset in the Temporal UI)
-- finds its row and returns the recorded result instead of writing twice.
--
-- `handoff` carries what later steps need without the clone (never through workflow history, which holds ids and
-- counts only). For a write step:
--   files:        [[file_path, File vertex graph id], ...]                     (resolveDependencies)
--   dependencies: [[file_path, [[target_path, weight], ...]], ...]            (resolveDependencies)
--   embed_inputs: [[file_record id, embedding text], ...] (spec rule 6)       (embedFiles; dropped once embedded)
CREATE TABLE sync_steps (
  sync_id uuid NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
  step text NOT NULL,
  result jsonb NOT NULL,
  handoff jsonb,
  done_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sync_id, step)
);
