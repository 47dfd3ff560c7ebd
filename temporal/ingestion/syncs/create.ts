/**
 * Creating a sync: the pending row and its lifecycle event in one transaction (the partial unique index
 * sync_runs_one_active_per_source arbitrates concurrent requests), then the workflow start. A start that fails
 * leaves the run `failed` with the error, never pending.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { withTransaction, isUniqueViolation } from '../../../lib/db.ts';
import { ConflictError, FailedPreconditionError, NotFoundError } from '../../../lib/errors.ts';
import type { SyncRunRow } from '../../../lib/sync-runs/index.ts';
import type { IngestionDeps } from '../deps.ts';
import { requireTemporal, temporalUnavailable } from '../temporal-gate.ts';
import type { SyncStartInput } from '../../../workflows/sync-contract.ts';
import { effectiveConfig, getSource, sourceName } from '../../../lib/sources.ts';
import { changeStatus, getActiveSyncOf, insertPendingRun, ONE_ACTIVE_INDEX } from '../../../lib/sync-runs/index.ts';
import { startSyncWorkflow, waitForClose, runningWorkflow } from './workflow.ts';
import { DEFAULT_RECONCILE_GRACE_MS, reconcileSource } from './reconcile.ts';

export interface CreateSyncInput {
  sourceId: string;
  triggeredBy: string;
  ref?: string | undefined;
  configOverrides?: Record<string, unknown> | undefined;
  /** A pull/merge request's head (webhooks): recorded with the run, which then never becomes the source's last sync. */
  review?: { provider: string; number: number; baseRef: string; headCommit: string | null } | undefined;
}

export async function createSync(deps: IngestionDeps, input: CreateSyncInput): Promise<SyncRunRow> {
  // Temporal unreachable: 503 in a few seconds, and no run committed that could not start.
  await requireTemporal(deps);
  try {
    return await createSyncOnce(deps, input);
  } catch (err) {
    // The source has an active run: when its workflow is not running (terminated in Temporal, never started, ...) the
    // reconciler ends it failed, and this request goes on instead of a 409 that would last forever.
    if (!(err instanceof ConflictError) || !err.details?.active_sync_id) throw err;
    const ended = await reconcileSource(
      deps,
      input.sourceId,
      deps.settings.reconcileGraceMs ?? DEFAULT_RECONCILE_GRACE_MS,
    ).catch((e: unknown) => {
      deps.log.warning('reconcile_failed', { source_id: input.sourceId, error: e });
      return false;
    });
    if (!ended) throw err;
    return createSyncOnce(deps, input);
  }
}

async function createSyncOnce(deps: IngestionDeps, input: CreateSyncInput): Promise<SyncRunRow> {
  const { pool, log } = deps;
  let name = '';
  let row: SyncRunRow;
  try {
    row = await withTransaction(pool, async (tx) => {
      const source = await getSource(tx, input.sourceId, true);
      if (!source) throw new NotFoundError('source', input.sourceId);
      if (!source.enabled) {
        throw new FailedPreconditionError(`source ${input.sourceId} is disabled; enable it to sync`, {
          source_id: input.sourceId,
        });
      }
      name = sourceName(source);
      const inserted = await insertPendingRun(tx, {
        sourceId: source.id,
        configSnapshot: effectiveConfig(source.config, input.configOverrides),
        ref: input.ref ?? source.default_branch,
        triggeredBy: input.triggeredBy,
        scheduleId: null,
      });
      if (!inserted) throw new Error('insert of a new sync run returned no row');
      if (input.review) {
        await tx.query(
          `INSERT INTO pull_request_syncs (sync_id, source_id, provider, pr_number, base_ref, head_commit)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [
            inserted.id,
            source.id,
            input.review.provider,
            input.review.number,
            input.review.baseRef,
            input.review.headCommit,
          ],
        );
      }
      return inserted;
    });
  } catch (err) {
    if (isUniqueViolation(err, ONE_ACTIVE_INDEX)) throw await activeSyncConflict(deps, input.sourceId);
    throw err;
  }

  const start = {
    syncId: row.id,
    sourceId: row.source_id,
    sourceName: name,
    ref: row.ref ?? '',
    trigger: input.triggeredBy,
  };
  try {
    await startWithConflictWait(deps, start);
  } catch (err) {
    const already = err instanceof WorkflowExecutionAlreadyStartedError;
    const message = already
      ? 'the workflow of the previous sync of this source is still running'
      : `could not start the sync workflow: ${err instanceof Error ? err.message : String(err)}`;
    await changeStatus(pool, { syncId: row.id, from: ['pending'], to: 'failed', error: message });
    log.warning('sync_start_failed', { sync_id: row.id, source_id: row.source_id, error: err });
    if (already) throw new ConflictError(message, { sync_id: row.id, source_id: row.source_id });
    throw temporalUnavailable(err, 'the sync was marked failed');
  }
  log.info('sync_created', { sync_id: row.id, source_id: row.source_id, triggered_by: row.triggered_by });
  return row;
}

/**
 * Starts the workflow. When the source's workflow id is still held by the previous run's closing workflow (its run is
 * no longer active, or the index would have refused this one), waits for it once, briefly, then starts.
 */
async function startWithConflictWait(deps: IngestionDeps, start: Omit<SyncStartInput, 'taskQueue'>): Promise<void> {
  const { temporal, settings } = deps;
  const full = { ...start, taskQueue: settings.taskQueue };
  try {
    await startSyncWorkflow(temporal, full);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const running = await runningWorkflow(temporal, start.sourceId);
    if (running && running.syncId !== start.syncId) {
      await waitForClose(temporal, start.sourceId, running.runId, settings.startConflictWaitMs);
    }
    await startSyncWorkflow(temporal, full);
  }
}

export async function activeSyncConflict(deps: IngestionDeps, sourceId: string): Promise<ConflictError> {
  const active = await getActiveSyncOf(deps.pool, sourceId);
  return new ConflictError(
    `source ${sourceId} already has an active sync`,
    active ? { active_sync_id: active.id, status: active.status } : { source_id: sourceId },
  );
}
