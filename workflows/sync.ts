/**
 * The sync workflow. Its id is the source id, so at most one runs per source. It runs one sync run (and any run
 * a `retry` signal hands it) through the activities: beginSync → ingestRepository (clone, parse, rows, graph, file
 * embeddings: one heartbeating activity, since the clone lives on one worker's disk) → embedChunks → finalizeSync.
 * Only ids, counts and durations pass through history.
 *
 * Cancel: the `cancel` signal or Temporal's own cancellation stops the running activity (it heartbeats, so it
 * hears of it within about a second), cleans nothing and ends the run `cancelled`. Any failure ends it `failed`.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  defineSignal,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { SyncActivities } from '../activities/index.ts';
import { CKG_SYNC_ID } from './search-attributes.ts';
import type {
  BeginSyncResult,
  EmbedChunksResult,
  IngestResult,
  SyncRunOutcome,
  SyncStats,
  SyncWorkflowInput,
  SyncWorkflowResult,
} from './sync-types.ts';

export type * from './sync-types.ts';

export const cancelSignal = defineSignal<[{ reason?: string }]>('cancel');
export const retrySignal = defineSignal<[{ syncId: string }]>('retry');

/** Short bookkeeping activities (status changes, events): retried patiently, never heartbeating. */
const control = proxyActivities<SyncActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 30 },
});

function failureMessage(err: unknown): string {
  let e: unknown = err;
  // An activity failure wraps the activity's own error; show that one.
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure || e instanceof Error) return e.message || e.name;
  return String(e);
}

export async function syncWorkflow(input: SyncWorkflowInput): Promise<SyncWorkflowResult> {
  const queue: string[] = [input.syncId];
  const runs: SyncRunOutcome[] = [];
  let current: string | null = null;
  let cancelReason: string | null = null;
  let scope: CancellationScope | null = null;

  setHandler(cancelSignal, (args) => {
    cancelReason = args?.reason || 'cancelled by request';
    scope?.cancel();
  });
  setHandler(retrySignal, ({ syncId }) => {
    // The run in progress already runs from scratch; a queued one runs once.
    if (syncId !== current && !queue.includes(syncId)) queue.push(syncId);
  });

  async function runOne(syncId: string): Promise<SyncRunOutcome> {
    const ids = { syncId, sourceId: input.sourceId };
    const begin: BeginSyncResult = await control.beginSync(ids);
    if (!begin.proceed) return { syncId, status: begin.status, ...(begin.error ? { error: begin.error } : {}) };
    const long = proxyActivities<SyncActivities>({
      startToCloseTimeout: begin.settings.attemptTimeoutMs,
      heartbeatTimeout: begin.settings.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: {
        initialInterval: '1 second',
        maximumInterval: '30 seconds',
        maximumAttempts: begin.settings.maxAttempts,
        nonRetryableErrorTypes: ['CloneFailed', 'SyncNotRunning'],
      },
    });
    const started = Date.now();
    try {
      scope = new CancellationScope();
      const [ingest, chunks] = await scope.run(async (): Promise<[IngestResult, EmbedChunksResult]> => {
        if (cancelReason !== null) CancellationScope.current().cancel();
        const ingest = await long.ingestRepository(ids);
        const chunks = await long.embedChunks({ ...ids, embeddings: begin.embeddings });
        return [ingest, chunks];
      });
      const stats: SyncStats = {
        commit_sha: ingest.commitSha,
        files: ingest.files,
        binary_files: ingest.binaryFiles,
        chunks: ingest.chunks,
        symbols: ingest.symbols,
        vertices: ingest.vertices,
        edges: ingest.edges,
        embeddings: {
          files_embedded: ingest.fileEmbeddings.embedded,
          files_failed: ingest.fileEmbeddings.failed,
          chunks_embedded: chunks.embedded,
          chunks_failed: chunks.failed,
          skipped: ingest.fileEmbeddings.skipped,
        },
        ...(ingest.incremental ? { incremental: ingest.incremental } : {}),
        durations_ms: { ...ingest.durationsMs, ...chunks.durationsMs },
      };
      // The work is done: completing it is not interrupted by a late cancellation.
      await CancellationScope.nonCancellable(() => control.finalizeSync({ ...ids, stats, startedAtMs: started }));
      return { syncId, status: 'completed' };
    } catch (err) {
      if (isCancellation(err)) {
        const byTemporal = cancelReason === null;
        const reason = cancelReason ?? 'cancelled through Temporal';
        await CancellationScope.nonCancellable(() => control.endSync({ ...ids, status: 'cancelled', error: reason }));
        // Temporal's own cancellation ends the workflow as Canceled, so the UI shows what happened.
        if (byTemporal) throw err;
        return { syncId, status: 'cancelled', error: reason };
      }
      const error = failureMessage(err);
      await CancellationScope.nonCancellable(() => control.endSync({ ...ids, status: 'failed', error }));
      return { syncId, status: 'failed', error };
    } finally {
      scope = null;
    }
  }

  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    current = next;
    cancelReason = null;
    upsertSearchAttributes([{ key: CKG_SYNC_ID, value: next }]);
    try {
      runs.push(await runOne(next));
    } catch (err) {
      // Temporal's cancellation can also land during beginSync; ending the run is idempotent.
      if (isCancellation(err)) {
        const ids = { syncId: next, sourceId: input.sourceId };
        await CancellationScope.nonCancellable(() =>
          control.endSync({ ...ids, status: 'cancelled', error: 'cancelled through Temporal' }),
        );
      }
      throw err;
    }
    current = null;
  }
  const last = runs[runs.length - 1] ?? { syncId: input.syncId, status: 'skipped' as const };
  return { ...last, runs };
}
