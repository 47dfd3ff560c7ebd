/**
 * The sync workflow. Its id is the source id, so at most one runs per source. It runs one sync run (and any run a
 * `retry` signal hands it) as one activity per step (docs/pipeline.md has each step's queue, timeouts and retries):
 *
 *   beginSync → cloneRepository → for each batch of 500 files: parseBatch, writeBatch (the parse runs up to two
 *   batches ahead: parses i+1 and i+2 overlap the write of batch i; the writes of a tree of mostly unchanged files
 *   run two at a time) → releaseWorkspace beside resolveDependencies and resolveSymbols →
 *   embedFiles → embedChunks (left out when the writes left nothing to embed), beside them the precise tier
 *   (planPrecise, then preciseIndex per language on the precise workers' queues, issue 29) → finalizeSync (or endSync
 *   on failure and cancellation)
 *
 * This file holds the workflow's life: its signals and query, the queue of runs, and one run from beginSync to its
 * end; the steps between are sync-steps.ts (phase by phase) and sync-batches.ts (the batches' parse and write).
 *
 * cloneRepository runs on any worker and answers that worker's own task queue; parseBatch, writeBatch and
 * releaseWorkspace go to that queue, because the clone and the parsed batches live on that worker. When it dies
 * (a step is not picked up within the host-queue timeout, or stops heartbeating), the workflow clones again on
 * another worker at the same commit and resumes with the first batch not yet written. Only ids and counts pass
 * through history.
 *
 * Cancel: the `cancel` signal or Temporal's own cancellation stops the running activities (they heartbeat, so they
 * hear of it within about a second), cleans nothing and ends the run `cancelled`. Any failure ends it `failed`.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  deprecatePatch,
  isCancellation,
  log,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  SYNC_FAILED,
  CKG_SYNC_ID,
  CKG_SYNC_STATUS,
  cancelSignal,
  parseCancelInput,
  parseRetryInput,
  progressQuery,
  retrySignal,
  signalInputPreview,
} from './sync-contract.ts';
import type {
  BeginSyncResult,
  SyncIds,
  SyncProgress,
  SyncRunOutcome,
  SyncWorkflowInput,
  SyncWorkflowResult,
} from './sync-types.ts';
import { control, failureMessage, stepContext } from './sync-options.ts';
import { SIGNALS_PATCH } from './sync-patches.ts';
import { syncSteps } from './sync-steps.ts';

export type * from './sync-types.ts';
export { cancelSignal, progressQuery, retrySignal } from './sync-contract.ts';

/** The workflow's state: the runs queued and handled, the run in progress and how to stop it. */
interface SyncState {
  input: SyncWorkflowInput;
  queue: string[];
  /** Retries being checked by queueRetry (a second signal for one of them is a duplicate). */
  claimed: Set<string>;
  runs: SyncRunOutcome[];
  current: string | null;
  cancelReason: string | null;
  scope: CancellationScope | null;
  progress: SyncProgress;
}

function setPhase(w: SyncState, phase: string, done: number, total: number): void {
  w.progress = { syncId: w.current, phase, done, total };
}

/**
 * CkgSyncStatus holds only how a run ended, as the database says (the ending step's answer), never `pending` or
 * `running`: Temporal lets nothing change a closed execution's search attributes and runs no workflow code on a
 * Terminate or a timeout, so a value written while the run is active would outlive an execution closed that way. An
 * active run has no CkgSyncStatus (ExecutionStatus says Running); an execution Temporal closed on its own keeps none,
 * and its ExecutionStatus (Terminated, TimedOut) says how it ended.
 */
function markEnd(status: string): void {
  upsertSearchAttributes([{ key: CKG_SYNC_STATUS, value: ACTIVE.has(status) ? null : status }]);
}

/**
 * No CkgSyncStatus while a run is active (a queued run after an ended one had its predecessor's). handle() clears it
 * with CkgSyncId, and runOne again once beginSync let the run proceed, where the workflow wrote `pending` and
 * `running` before this rule: the second changes nothing and stays so that the workflow issues the same commands
 * (replay compares an upsert's command type, not its attributes: histories of open workflows replay without a patch;
 * docs/pipeline.md "Versioning").
 */
function clearStatus(): void {
  upsertSearchAttributes([{ key: CKG_SYNC_STATUS, value: null }]);
}

const ACTIVE = new Set(['pending', 'running']);

/** A signal the workflow ignores: logged, and recorded as a `signal_rejected` event (never a task failure). */
async function reject(w: SyncState, signal: string, raw: unknown, reason: string): Promise<void> {
  log.warn('signal rejected', { signal, input: signalInputPreview(raw), reason });
  await control(`ignore the ${signal} signal: ${reason}`).recordRejectedSignal({
    sourceId: w.input.sourceId,
    syncId: w.current,
    signal,
    input: signalInputPreview(raw),
    reason,
  });
}

/** `cancel` and `retry` (inputs checked: a bad one is rejected, never a task failure) and the `progress` query. */
function handleSignals(w: SyncState): void {
  setHandler(cancelSignal, async (raw: unknown) => {
    deprecatePatch(SIGNALS_PATCH);
    const checked = parseCancelInput(raw);
    if (!checked.ok) return reject(w, 'cancel', raw, checked.reason);
    w.cancelReason = checked.value.reason ?? 'cancelled by request';
    w.scope?.cancel();
  });
  setHandler(retrySignal, async (raw: unknown) => {
    deprecatePatch(SIGNALS_PATCH);
    const checked = parseRetryInput(raw);
    if (!checked.ok) return reject(w, 'retry', raw, checked.reason);
    const { syncId } = checked.value;
    // The run in progress already runs from scratch; a queued one runs once.
    if (syncId === w.current || w.queue.includes(syncId) || w.claimed.has(syncId)) return;
    w.claimed.add(syncId);
    try {
      const r = await control(`queue the retry of sync ${syncId}`).queueRetry({
        syncId,
        sourceId: w.input.sourceId,
        position: w.queue.length + 1,
        behind: w.current,
      });
      if (r.queued && syncId !== w.current && !w.queue.includes(syncId)) w.queue.push(syncId);
    } finally {
      w.claimed.delete(syncId);
    }
  });
  setHandler(progressQuery, () => w.progress);
}

/** A run stopped by a failure or a cancellation: endSync records it (not interrupted by a late cancellation). */
async function endRun(
  w: SyncState,
  ids: SyncIds,
  begin: BeginSyncResult & { proceed: true },
  err: unknown,
): Promise<SyncRunOutcome> {
  if (isCancellation(err)) {
    const byTemporal = w.cancelReason === null;
    const reason = w.cancelReason ?? 'cancelled through Temporal';
    const ended = await CancellationScope.nonCancellable(() =>
      control('end: cancelled', begin.settings).endSync({ ...ids, status: 'cancelled', error: reason }),
    );
    setPhase(w, 'cancelled', 0, 0);
    markEnd(ended.status ?? 'cancelled');
    // Temporal's own cancellation ends the workflow as Canceled, so the UI shows what happened.
    if (byTemporal) throw err;
    return { syncId: ids.syncId, status: 'cancelled', error: reason };
  }
  const error = failureMessage(err);
  const ended = await CancellationScope.nonCancellable(() =>
    control('end: failed', begin.settings).endSync({ ...ids, status: 'failed', error }),
  );
  setPhase(w, 'failed', 0, 0);
  markEnd(ended.status ?? 'failed');
  return { syncId: ids.syncId, status: 'failed', error };
}

/** One run: beginSync, its steps in a cancellation scope, then finalizeSync (or endRun). */
async function runOne(w: SyncState, syncId: string): Promise<SyncRunOutcome> {
  const ids = { syncId, sourceId: w.input.sourceId };
  setPhase(w, 'starting', 0, 0);
  const begin = await control('begin: pending → running').beginSync(ids);
  if (!begin.proceed) {
    setPhase(w, begin.status, 0, 0);
    // The search attribute says what the database says (a Reset may reach a run that completed).
    markEnd(begin.runStatus ?? begin.status);
    return { syncId, status: begin.status, ...(begin.error ? { error: begin.error } : {}) };
  }
  const started = Date.now();
  clearStatus();
  try {
    const scope = new CancellationScope();
    w.scope = scope;
    const stats = await scope.run(async () => {
      if (w.cancelReason !== null) CancellationScope.current().cancel();
      return syncSteps(stepContext(ids, begin, (phase, done, total) => setPhase(w, phase, done, total)));
    });
    setPhase(w, 'finalizing', 0, 1);
    // The work is done: completing it is not interrupted by a late cancellation.
    const finalized = await CancellationScope.nonCancellable(() =>
      control('finalize: issue cap, stats, running → completed', begin.settings).finalizeSync({
        ...ids,
        stats,
        startedAtMs: started,
      }),
    );
    setPhase(w, 'completed', 1, 1);
    markEnd(finalized.status ?? 'completed');
    return { syncId, status: 'completed' };
  } catch (err) {
    return await endRun(w, ids, begin, err);
  } finally {
    w.scope = null;
  }
}

/** The next run to handle: the queue's first, after any retry signal still being checked; none: the workflow ends. */
async function nextRun(w: SyncState): Promise<string | undefined> {
  const next = w.queue.shift();
  if (next !== undefined) return next;
  deprecatePatch(SIGNALS_PATCH);
  // A retry signal being checked (queueRetry) may still add a run.
  await condition(allHandlersFinished);
  return w.queue.shift();
}

/** Handles `syncId` (its outcome added to the runs); Temporal's cancellation ends the run and the workflow. */
async function handle(w: SyncState, syncId: string): Promise<void> {
  w.current = syncId;
  w.cancelReason = null;
  // The run being handled, and no CkgSyncStatus while it is active (clearStatus).
  upsertSearchAttributes([
    { key: CKG_SYNC_ID, value: syncId },
    { key: CKG_SYNC_STATUS, value: null },
  ]);
  try {
    w.runs.push(await runOne(w, syncId));
  } catch (err) {
    // Temporal's cancellation can also land during beginSync; ending the run is idempotent.
    if (isCancellation(err)) {
      const ids = { syncId, sourceId: w.input.sourceId };
      const ended = await CancellationScope.nonCancellable(() =>
        control('end: cancelled').endSync({ ...ids, status: 'cancelled', error: 'cancelled through Temporal' }),
      );
      markEnd(ended.status ?? 'cancelled');
    }
    throw err;
  }
  w.current = null;
}

export async function syncWorkflow(input: SyncWorkflowInput): Promise<SyncWorkflowResult> {
  const w: SyncState = {
    input,
    queue: [input.syncId],
    claimed: new Set(),
    runs: [],
    current: null,
    cancelReason: null,
    scope: null,
    progress: { syncId: input.syncId, phase: 'pending', done: 0, total: 0 },
  };
  handleSignals(w);
  for (let next = await nextRun(w); next !== undefined; next = await nextRun(w)) await handle(w, next);
  const last = w.runs[w.runs.length - 1] ?? { syncId: input.syncId, status: 'skipped' as const };
  if (last.status === 'failed') {
    deprecatePatch(SIGNALS_PATCH);
    // A failed sync is a failed workflow execution: Temporal's own status filter (Failed) finds it, with the
    // run's error as the failure message; the result rides along as the failure's details.
    throw ApplicationFailure.create({
      type: SYNC_FAILED,
      message: last.error ?? 'sync failed',
      nonRetryable: true,
      details: [{ ...last, runs: w.runs }],
    });
  }
  return { ...last, runs: w.runs };
}
