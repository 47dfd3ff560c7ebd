/**
 * Cancel: the `cancel` signal to the workflow running the sync (it stops its activities and records the run as
 * cancelled). A run whose workflow never started or is gone is marked cancelled here. The answer waits up to
 * CANCEL_WAIT_MS for the terminal status; past that it returns the run as it is (clients follow the lifecycle
 * events).
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import { FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import type { SyncRunRow } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';
import { requireTemporal } from '../temporal-gate.ts';
import { ACTIVE_STATUSES, changeStatus, getSync } from '../../../lib/sync-runs/index.ts';
import { runningWorkflow, signalCancel } from './workflow.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export async function cancelSync(deps: IngestionDeps, syncId: string, reason: string): Promise<SyncRunRow> {
  const { pool, temporal, log, settings } = deps;
  const row = await getSync(pool, syncId);
  if (!row) throw new NotFoundError('sync', syncId);
  if (!ACTIVE_STATUSES.includes(row.status)) {
    throw new FailedPreconditionError(
      `sync ${syncId} is ${row.status}; only a pending or running sync can be cancelled`,
      {
        status: row.status,
      },
    );
  }

  await requireTemporal(deps);
  const running = await runningWorkflow(temporal, row.source_id);
  let signalled = false;
  if (running && running.syncId === syncId) {
    try {
      await signalCancel(temporal, row.source_id, running.runId, reason);
      signalled = true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  if (!signalled) {
    // No workflow runs this sync (never started, or gone): the run cannot end by itself.
    const changed = await changeStatus(pool, { syncId, from: ACTIVE_STATUSES, to: 'cancelled', error: reason });
    log.info('sync_cancelled', { sync_id: syncId, source_id: row.source_id, by: 'ingestion', reason });
    return changed?.row ?? (await currentOrGone(deps, syncId));
  }
  log.info('sync_cancel_signalled', { sync_id: syncId, source_id: row.source_id, reason });
  return waitForTerminal(deps, syncId, settings.cancelWaitMs);
}

async function waitForTerminal(deps: IngestionDeps, syncId: string, ms: number): Promise<SyncRunRow> {
  const until = Date.now() + ms;
  for (;;) {
    const row = await currentOrGone(deps, syncId);
    if (!ACTIVE_STATUSES.includes(row.status) || Date.now() >= until) return row;
    await sleep(Math.min(100, Math.max(0, until - Date.now())));
  }
}

async function currentOrGone(deps: IngestionDeps, syncId: string): Promise<SyncRunRow> {
  const row = await getSync(deps.pool, syncId);
  if (!row) throw new NotFoundError('sync', syncId);
  return row;
}
