/**
 * The reconciler: Temporal and the database never disagree for long. A run that is active (pending or running) in
 * the database while its source's workflow is not running is ended with a reason that says what happened, through
 * changeStatus (lib/sync-runs: the run's status change and its `sync_lifecycle` event, one transaction): terminated
 * from the Temporal UI or CLI → `cancelled`, error `terminated in Temporal by <identity>: <the operator's reason>`
 * (read from the execution's last history event), progress phase `terminated`; cancelled in Temporal → `cancelled`;
 * timed out, failed or completed without recording an end, never started after the row committed, its history gone →
 * `failed`. It runs at the next sync request of the source (createSync, on the one-active conflict), on every pass of
 * the watcher (watch.ts, every WATCH_INTERVAL_SECONDS: a Terminate shows in the API within seconds) and every
 * RECONCILE_INTERVAL_SECONDS with the repair of schedule intents.
 *
 * It asks Temporal with `describe` of the source's workflow (the workflow id is the source id) and holds no database
 * connection meanwhile. A run younger than the grace period is left alone when Temporal shows no execution of it:
 * its workflow may be starting right now (createSync inserts the row, then starts the workflow). A running workflow is
 * always left alone: the workflow records its own end.
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { withTransaction } from '../../../lib/db.ts';
import type { SyncRunRow } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';
import { ACTIVE_STATUSES, changeStatus, clearQueued, getActiveSyncOf } from '../../../lib/sync-runs/index.ts';
import { syncIdOf } from './workflow.ts';
import { repairStaleSchedules } from '../schedules/repair.ts';

export const DEFAULT_RECONCILE_GRACE_MS = 30_000;
/** A describe that does not answer in this long counts as "Temporal unavailable": nothing is decided. */
const DESCRIBE_TIMEOUT_MS = 5000;

/** How a run whose workflow is gone ends. */
export interface StaleEnding {
  status: 'failed' | 'cancelled';
  error: string;
  /** progress_meta.phase of the ended run. */
  phase: string;
}

const CLOSED_REASONS: Record<string, string> = {
  TERMINATED: 'was terminated in Temporal (e.g. from the Temporal UI or CLI)',
  TIMED_OUT: 'timed out in Temporal',
  CANCELLED: 'was cancelled in Temporal',
  FAILED: 'failed in Temporal',
  COMPLETED: 'completed',
  CONTINUED_AS_NEW: 'continued as new',
};

async function describe(deps: IngestionDeps, workflowId: string): Promise<WorkflowExecutionDescription | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Temporal did not answer describe in ${DESCRIBE_TIMEOUT_MS} ms`)),
      DESCRIBE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([deps.temporal.workflow.getHandle(workflowId).describe(), timeout]);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The operator's reason and identity of a Terminate: the execution's last history event. */
async function terminationOf(
  deps: IngestionDeps,
  workflowId: string,
  runId: string,
): Promise<{ reason: string; identity: string } | undefined> {
  const page = await deps.temporal.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: deps.temporal.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  const attrs = page.history?.events?.[0]?.workflowExecutionTerminatedEventAttributes;
  if (!attrs) return undefined;
  return { reason: attrs.reason ?? '', identity: attrs.identity ?? '' };
}

/**
 * How `run` ends when it can never end by itself, or undefined when it may (its workflow runs, or Temporal shows
 * nothing yet and the run is younger than the grace period). Throws when Temporal cannot be asked.
 */
export async function staleEnding(
  deps: IngestionDeps,
  run: SyncRunRow,
  graceMs: number,
): Promise<StaleEnding | undefined> {
  const d = await describe(deps, run.source_id);
  const young = Date.now() - new Date(run.created_at).getTime() < graceMs;
  const failed = (error: string): StaleEnding => ({ status: 'failed', error, phase: 'failed' });
  if (d === null) {
    if (young) return undefined;
    return failed(
      `reconciled: no workflow execution exists for this sync (it was never started after the run was recorded, or its history is gone)`,
    );
  }
  if (d.status.name === 'RUNNING') return undefined;
  const ours = syncIdOf(d);
  // A closed execution of another sync while this row is young: this run's workflow may be starting now.
  if (ours !== run.id && young) return undefined;
  const when = d.closeTime ? ` at ${d.closeTime.toISOString()}` : '';
  if (ours === run.id && d.status.name === 'TERMINATED') {
    const t = await terminationOf(deps, run.source_id, d.runId).catch(() => undefined);
    const by = t?.identity ? ` by ${t.identity}` : '';
    const reason = t?.reason ? `: ${t.reason}` : ' (no reason given)';
    return { status: 'cancelled', error: `terminated in Temporal${by}${when}${reason}`, phase: 'terminated' };
  }
  if (ours === run.id && d.status.name === 'CANCELLED') {
    return { status: 'cancelled', error: `cancelled in Temporal${when}`, phase: 'cancelled' };
  }
  const what = CLOSED_REASONS[d.status.name] ?? `ended with status ${d.status.name}`;
  return failed(
    ours === run.id
      ? `reconciled: the sync workflow ${what}${when} without recording an end of this run (run id ${d.runId})`
      : `reconciled: the source's workflow is not running (its last execution ${what}${when}); this run was never picked up`,
  );
}

/**
 * Ends `run` as `ending` says (and its lifecycle event) unless it has left pending/running meanwhile; the source's
 * runs still marked queued behind it are unmarked (their workflow is gone).
 */
async function endStale(deps: IngestionDeps, run: SyncRunRow, ending: StaleEnding): Promise<boolean> {
  const changed = await withTransaction(deps.pool, async (tx) => {
    const c = await changeStatus(tx, {
      syncId: run.id,
      from: ACTIVE_STATUSES,
      to: ending.status,
      error: ending.error,
      meta: { phase: ending.phase },
    });
    if (c) await clearQueued(tx, run.source_id);
    return c;
  });
  if (changed) {
    deps.log.warning('sync_reconciled', {
      sync_id: run.id,
      source_id: run.source_id,
      status: ending.status,
      reason: ending.error,
    });
  }
  return changed !== undefined;
}

/** Ends the source's active run when its workflow is not running; true when a run was ended. */
export async function reconcileSource(deps: IngestionDeps, sourceId: string, graceMs: number): Promise<boolean> {
  const active = await getActiveSyncOf(deps.pool, sourceId);
  if (!active) return false;
  const ending = await staleEnding(deps, active, graceMs);
  return ending === undefined ? false : endStale(deps, active, ending);
}

/**
 * One pass over every active run; returns how many were ended. Young runs are asked about too: a run terminated in
 * its first seconds ends at once; one whose workflow Temporal does not show yet is left alone (staleEnding).
 */
export async function reconcileAll(deps: IngestionDeps, graceMs: number): Promise<number> {
  const r = await deps.pool.query<{ source_id: string }>(
    `SELECT DISTINCT source_id FROM sync_runs WHERE status = ANY($1::text[])`,
    [ACTIVE_STATUSES],
  );
  let ended = 0;
  for (const { source_id } of r.rows) {
    try {
      if (await reconcileSource(deps, source_id, graceMs)) ended++;
    } catch (err) {
      deps.log.warning('reconcile_failed', { source_id, error: err });
    }
  }
  return ended;
}

export interface Reconciler {
  stop(): Promise<void>;
}

/**
 * Runs reconcileAll, then the repair of stale schedule intents (schedules/repair.ts), every `intervalMs` (0: never); a
 * pass that fails is logged and the next one runs on time.
 */
export function startReconciler(deps: IngestionDeps, intervalMs: number, graceMs: number): Reconciler {
  if (intervalMs <= 0) return { stop: () => Promise.resolve() };
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let busy = false;
  const timer = setInterval(() => {
    if (stopped || busy) return;
    busy = true;
    current = reconcileAll(deps, graceMs)
      .then(async (ended) => {
        const repaired = await repairStaleSchedules(deps);
        if (ended > 0 || repaired > 0) deps.log.info('reconcile_pass', { ended, schedules_repaired: repaired });
      })
      .then(
        () => undefined,
        (err: unknown) => deps.log.warning('reconcile_failed', { error: err }),
      )
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
