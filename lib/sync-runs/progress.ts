/** A running run's progress columns, and the workflow execution that owns it (progress_meta.workflow_run_id). */
import type { Queryable } from '../db.ts';
import { PHASES, type Phase } from './phases.ts';

/**
 * progress_done / progress_total / progress_meta.phase of a run that is still `running`; false when it is not (the
 * caller then writes no progress event).
 */
export async function writeProgress(
  db: Queryable,
  syncId: string,
  state: { phase: Phase; done: number; total: number },
): Promise<boolean> {
  const r = await db.query(
    `UPDATE sync_runs SET progress_done = $2, progress_total = $3,
            progress_meta = progress_meta || jsonb_build_object('phase', $4::text, 'phase_index', $5::int)
      WHERE id = $1 AND status = 'running'`,
    [syncId, state.done, state.total, state.phase, PHASES.indexOf(state.phase)],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Records the Temporal run id of the workflow execution that now works on the run. */
export async function recordWorkflowRun(db: Queryable, syncId: string, runId: string): Promise<void> {
  await db.query(
    `UPDATE sync_runs SET progress_meta = progress_meta || jsonb_build_object('workflow_run_id', $2::text)
      WHERE id = $1`,
    [syncId, runId],
  );
}
