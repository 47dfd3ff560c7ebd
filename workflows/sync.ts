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
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  deprecatePatch,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { SyncActivities } from '../activities/index.ts';
import type { PreciseActivities } from '../activities/precise/index.ts';
import {
  BATCH_FILES,
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
  CloneResult,
  EmbedResult,
  PhaseDurations,
  PreciseLanguageResult,
  SyncActivitySettings,
  SyncIds,
  SyncProgress,
  SyncRunOutcome,
  SyncStats,
  SyncWorkflowInput,
  SyncWorkflowResult,
  WriteBatchResult,
} from './sync-types.ts';

export type * from './sync-types.ts';
export { cancelSignal, progressQuery, retrySignal } from './sync-contract.ts';

/**
 * Short bookkeeping activities (status changes, events): retried patiently. They heartbeat; once beginSync has told
 * the workflow the worker's heartbeat timeout, a control step whose worker died is retried elsewhere after that
 * timeout instead of after its start-to-close minute.
 */
const CONTROL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 30 },
};

function control(summary: string, s?: SyncActivitySettings) {
  return proxyActivities<SyncActivities>({
    ...CONTROL,
    ...(s ? { heartbeatTimeout: s.heartbeatTimeoutMs } : {}),
    summary,
  });
}

function failureMessage(err: unknown): string {
  let e: unknown = err;
  // An activity failure wraps the activity's own error; show that one.
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure || e instanceof Error) return e.message || e.name;
  return String(e);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The worker holding the clone is gone (or restarted): its steps cannot run; clone again elsewhere. */
function hostLost(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure)
    return cause.timeoutType === 'SCHEDULE_TO_START' || cause.timeoutType === 'HEARTBEAT';
  return cause instanceof ApplicationFailure && cause.type === 'WorkspaceLost';
}

/** 3139 → "3,139" (no Intl in workflow code: it must replay the same everywhere). */
function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Batches the parse may run ahead of the write. Two: while batch b is written and b + 1 waits, b + 2 is parsed
 * (the parsed batches are held in the host worker's memory, so one more batch of ~500 files' analyses).
 */
const PARSE_AHEAD = 2;

/**
 * Retired patches (docs/pipeline.md, "Versioning"). Each was `patched(id)` around a change of the workflow's steps;
 * every sync workflow open today was started by code that took the new branch and recorded the patch's marker, so
 * the old branches are gone and each call is `deprecatePatch(id)` at the place `patched(id)` stood: histories with
 * the marker (test/fixtures/histories/*-2026-11-28.json) replay, and this version records the marker too. The calls
 * go in a later version, once no open workflow was started by a version that called `patched` (Temporal's rule:
 * workers without the call can replay histories whose marker is deprecated, not the others).
 *
 *   parse-two-batches-ahead          the parse runs two batches ahead of the write (was: one)
 *   release-beside-resolve           the clone's release runs beside the resolve (was: awaited first)
 *   skip-idle-embedding-steps        the embedding steps are left out when nothing is left to embed
 *   symbol-graph                     resolveSymbols beside resolveDependencies (issue 28)
 *   precise-tier                     the precise tier's plan and steps beside the embedding (issue 29)
 *   light-tree-writes-together       a light tree's writes run k at a time (was: one at a time)
 *   checked-signals-failed-workflows signal inputs checked, a failed last run fails the workflow (issue 31)
 */
const PARSE_AHEAD_PATCH = 'parse-two-batches-ahead';
const RELEASE_BESIDE_RESOLVE_PATCH = 'release-beside-resolve';
const IDLE_EMBED_PATCH = 'skip-idle-embedding-steps';
const SYMBOL_GRAPH_PATCH = 'symbol-graph';
const PRECISE_PATCH = 'precise-tier';
const CONCURRENT_WRITES_PATCH = 'light-tree-writes-together';
const SIGNALS_PATCH = 'checked-signals-failed-workflows';

const NOT_RETRIED = ['CloneFailed', 'SyncNotRunning', 'WorkspaceLost'];

/** The options of the long steps: heartbeating, cancellable, retried up to the worker's setting. */
function stepOptions(s: SyncActivitySettings): ActivityOptions {
  return {
    startToCloseTimeout: s.attemptTimeoutMs,
    heartbeatTimeout: s.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '1 second',
      maximumInterval: '30 seconds',
      maximumAttempts: s.maxAttempts,
      nonRetryableErrorTypes: NOT_RETRIED,
    },
  };
}

function emptyTotals(): Omit<WriteBatchResult, 'issues' | 'embedInputs' | 'chunksToEmbed'> {
  return { files: 0, binaryFiles: 0, chunks: 0, symbols: 0, fileVertices: 0, symbolVertices: 0, definesEdges: 0 };
}

/**
 * The precise tier of one sync (issue 29): the plan on the shared queue (languages present, live precise workers),
 * then one step per language on that language's precise queue, all at once. A step that no worker takes in time
 * (scheduleToStart), or that fails past its retries, becomes a sync issue; the sync goes on. Cancellation stops them.
 */
async function precise(
  ids: SyncIds,
  commitSha: string,
  s: SyncActivitySettings,
): Promise<{ languages: Record<string, PreciseLanguageResult>; ms: number }> {
  const started = Date.now();
  const plan = await control('precise: plan (languages present, precise workers)', s).planPrecise(ids);
  const languages: Record<string, PreciseLanguageResult> = {};
  for (const language of plan.skipped)
    languages[language] = {
      language,
      status: 'skipped',
      reason: 'precise_no_worker',
      edges: 0,
      external: 0,
      replaced: 0,
      added: 0,
      removed: 0,
      confirmed: 0,
      ms: 0,
    };
  await Promise.all(
    plan.run.map(async (p) => {
      const t = Date.now();
      try {
        languages[p.language] = await proxyActivities<PreciseActivities>({
          taskQueue: p.queue,
          startToCloseTimeout: p.timeoutMs,
          scheduleToStartTimeout: s.hostQueueTimeoutMs * 5,
          heartbeatTimeout: s.heartbeatTimeoutMs,
          cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
          retry: { initialInterval: '5 seconds', maximumAttempts: 2, nonRetryableErrorTypes: NOT_RETRIED },
          summary: `precise: ${p.indexer} on the ${p.language} files`,
        }).preciseIndex({ ...ids, language: p.language, commitSha });
      } catch (err) {
        if (isCancellation(err)) throw err;
        const message = failureMessage(err);
        await control(`precise: ${p.language} did not complete`, s).notePrecise({
          ...ids,
          language: p.language,
          message,
        });
        languages[p.language] = {
          language: p.language,
          status: 'failed',
          reason: message,
          edges: 0,
          external: 0,
          replaced: 0,
          added: 0,
          removed: 0,
          confirmed: 0,
          ms: Date.now() - t,
        };
      }
    }),
  );
  return { languages, ms: Date.now() - started };
}

export async function syncWorkflow(input: SyncWorkflowInput): Promise<SyncWorkflowResult> {
  const queue: string[] = [input.syncId];
  /** Retries being checked by queueRetry (a second signal for one of them is a duplicate). */
  const claimed = new Set<string>();
  const runs: SyncRunOutcome[] = [];
  let current: string | null = null;
  let cancelReason: string | null = null;
  let scope: CancellationScope | null = null;
  let progress: SyncProgress = { syncId: input.syncId, phase: 'pending', done: 0, total: 0 };

  /** A signal the workflow ignores: logged, and recorded as a `signal_rejected` event (never a task failure). */
  async function reject(signal: string, raw: unknown, reason: string): Promise<void> {
    log.warn('signal rejected', { signal, input: signalInputPreview(raw), reason });
    await control(`ignore the ${signal} signal: ${reason}`).recordRejectedSignal({
      sourceId: input.sourceId,
      syncId: current,
      signal,
      input: signalInputPreview(raw),
      reason,
    });
  }

  setHandler(cancelSignal, async (raw: unknown) => {
    deprecatePatch(SIGNALS_PATCH);
    const checked = parseCancelInput(raw);
    if (!checked.ok) return reject('cancel', raw, checked.reason);
    cancelReason = checked.value.reason ?? 'cancelled by request';
    scope?.cancel();
  });
  setHandler(retrySignal, async (raw: unknown) => {
    deprecatePatch(SIGNALS_PATCH);
    const checked = parseRetryInput(raw);
    if (!checked.ok) return reject('retry', raw, checked.reason);
    const { syncId } = checked.value;
    // The run in progress already runs from scratch; a queued one runs once.
    if (syncId === current || queue.includes(syncId) || claimed.has(syncId)) return;
    claimed.add(syncId);
    try {
      const r = await control(`queue the retry of sync ${syncId}`).queueRetry({
        syncId,
        sourceId: input.sourceId,
        position: queue.length + 1,
        behind: current,
      });
      if (r.queued && syncId !== current && !queue.includes(syncId)) queue.push(syncId);
    } finally {
      claimed.delete(syncId);
    }
  });
  setHandler(progressQuery, () => progress);

  const setPhase = (phase: string, done: number, total: number) => {
    progress = { syncId: current, phase, done, total };
  };
  /** The sync's status as a search attribute, so the UI filters on it (e.g. failed syncs of acme/*). */
  const markStatus = (status: string) => upsertSearchAttributes([{ key: CKG_SYNC_STATUS, value: status }]);

  async function steps(ids: SyncIds, begin: BeginSyncResult & { proceed: true }): Promise<SyncStats> {
    const s = begin.settings;
    const step = (summary: string) => proxyActivities<SyncActivities>({ ...stepOptions(s), summary });
    const onHost = (clone: CloneResult, summary: string) =>
      proxyActivities<SyncActivities>({
        ...stepOptions(s),
        taskQueue: clone.hostQueue,
        scheduleToStartTimeout: s.hostQueueTimeoutMs,
        summary,
      });
    const durations: PhaseDurations = {};
    const totals = emptyTotals();
    const written = new Set<number>();
    const toEmbed = { known: true, files: 0, chunks: 0 };
    let releasing: Promise<void> = Promise.resolve();
    let commitSha: string | null = null;
    let clones = 0;

    // Clone, then parse and write every batch; clone again (same commit) when the worker holding the clone is lost.
    for (;;) {
      let t = Date.now();
      setPhase('cloning', 0, 1);
      const clone: CloneResult = await step(
        `clone ${begin.source} at ${commitSha ? commitSha.slice(0, 12) : begin.ref}${clones > 0 ? ` (again, clone ${clones + 1})` : ''}`,
      ).cloneRepository({ ...ids, fresh: clones === 0, commitSha });
      clones++;
      commitSha = clone.commitSha;
      durations.cloning = (durations.cloning ?? 0) + (Date.now() - t);
      t = Date.now();
      setPhase('parsing', totals.files, clone.files);
      try {
        await batches(clone);
        durations.parsing = (durations.parsing ?? 0) + (Date.now() - t);
        // Best effort: a worker that is gone took its clone with it.
        const release = onHost(clone, 'release the clone')
          .releaseWorkspace(ids)
          .then(
            () => undefined,
            () => undefined,
          );
        // The release runs beside the resolve (it touches only the worker's own files).
        deprecatePatch(RELEASE_BESIDE_RESOLVE_PATCH);
        releasing = release;
        break;
      } catch (err) {
        durations.parsing = (durations.parsing ?? 0) + (Date.now() - t);
        if (!hostLost(err) || clones >= s.maxAttempts) throw err;
      }
    }

    /** Parses batch b on the worker holding the clone. */
    function parse(clone: CloneResult, b: number): Promise<unknown> {
      const first = (clone.bounds ? clone.bounds[b]! : b * BATCH_FILES) + 1;
      const last = clone.bounds ? clone.bounds[b + 1]! : Math.min(clone.files, (b + 1) * BATCH_FILES);
      return onHost(
        clone,
        `parse ${count(clone.files)} files, batch ${b + 1}/${clone.batches} (files ${count(first)}-${count(last)})`,
      ).parseBatch({ ...ids, batch: b });
    }

    /** Writes the parsed batch and adds what it wrote to the totals. */
    async function write(clone: CloneResult, batch: number): Promise<void> {
      const r = await onHost(
        clone,
        `write batch ${batch + 1}/${clone.batches}: file records, chunks, vertices, edges`,
      ).writeBatch({ ...ids, batch });
      for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += r[k];
      // A result recorded by a worker that did not count them leaves the embedding steps to find out.
      if (r.embedInputs === undefined || r.chunksToEmbed === undefined) toEmbed.known = false;
      else {
        toEmbed.files += r.embedInputs;
        toEmbed.chunks += r.chunksToEmbed;
      }
      written.add(batch);
      setPhase('parsing', totals.files, clone.files);
    }

    async function batches(clone: CloneResult): Promise<void> {
      deprecatePatch(PARSE_AHEAD_PATCH);
      const k = clone.writeConcurrency ?? 1;
      if (k > 1) {
        deprecatePatch(CONCURRENT_WRITES_PATCH);
        return batchesTogether(clone, k);
      }
      return batchesAhead(clone);
    }

    /**
     * Parse and write every batch not yet written, the parse running up to PARSE_AHEAD batches ahead of the write:
     * the parse of batch b waits only for the write of batch b - 1 - PARSE_AHEAD, so a long write does not leave
     * the parse threads idle (with one batch of look-ahead it did for ~6 s of a ~32 s Go pipeline). Writes run one
     * at a time, in batch order. A failed step stops the loop; a running write is always awaited.
     */
    async function batchesAhead(clone: CloneResult): Promise<void> {
      const failed: { error: Error | null } = { error: null };
      const check = (): void => {
        if (failed.error) throw failed.error;
      };
      // The write chain: each write starts when its parse and the previous write are done. With no write running
      // or waiting, it is scheduled at once (before the next parse: the order an operator reads in the history).
      let lastWrite: Promise<void> = Promise.resolve();
      let queued = 0;
      // Write promises of the batches parsed in this loop, in order (to wait for the one PARSE_AHEAD + 1 back).
      const writes: Array<Promise<void>> = [];
      const enqueueWrite = (batch: number): void => {
        const run = async (): Promise<void> => {
          try {
            if (failed.error) return;
            await write(clone, batch);
          } catch (err) {
            failed.error = asError(err);
          } finally {
            queued--;
          }
        };
        queued++;
        lastWrite = queued === 1 ? run() : lastWrite.then(run);
        writes.push(lastWrite);
      };
      try {
        for (let b = 0; b < clone.batches; b++) {
          if (written.has(b)) continue;
          const behind = writes[writes.length - 1 - PARSE_AHEAD];
          if (behind) await behind;
          check();
          await parse(clone, b);
          check();
          enqueueWrite(b);
        }
      } finally {
        // Never leave a write running behind a failure.
        await lastWrite;
      }
      check();
    }

    /**
     * The loop of a light tree (CloneResult.writeConcurrency k > 1): up to k parses and k writes run at once, each
     * write its own transaction, writes scheduled in batch order as soon as their batch is parsed and a write slot is
     * free. A light tree has at most BATCH_FILES files to analyse in all, so its parsed batches are small whatever
     * runs ahead; its parses are mostly import resolution of unchanged files (~0.1 s), so the next one starts with
     * this one instead of after it. A failed step stops the loop; running steps are always awaited.
     */
    async function batchesTogether(clone: CloneResult, k: number): Promise<void> {
      const todo: number[] = [];
      for (let b = 0; b < clone.batches; b++) if (!written.has(b)) todo.push(b);
      const failed: { error: Error | null } = { error: null };
      const check = (): void => {
        if (failed.error) throw failed.error;
      };
      const parses: Array<Promise<unknown>> = [];
      const startParses = (upTo: number): void => {
        while (parses.length < Math.min(upTo, todo.length)) {
          const p = parse(clone, todo[parses.length]!);
          // Awaited in order below; one that fails while an earlier one is awaited must not go unhandled.
          p.catch(() => undefined);
          parses.push(p);
        }
      };
      const running = new Set<Promise<void>>();
      try {
        for (let i = 0; i < todo.length; i++) {
          startParses(i + k);
          await parses[i];
          check();
          while (running.size >= k) await Promise.race(running);
          check();
          const w: Promise<void> = write(clone, todo[i]!)
            .catch((err: unknown) => {
              failed.error ??= asError(err);
            })
            .finally(() => running.delete(w));
          running.add(w);
        }
      } finally {
        // Never leave a step running behind a failure.
        await Promise.all(running);
        await Promise.all(parses.map((p) => p.catch(() => undefined)));
      }
      check();
    }

    let t = Date.now();
    setPhase('graphing', 0, totals.fileVertices);
    // The symbol graph runs beside the depends_on edges: neither reads what the other writes.
    // `symbol_graph: false` in the run's config leaves it out (and with it the precise tier, which compares with it).
    deprecatePatch(SYMBOL_GRAPH_PATCH);
    const symbolsRun =
      begin.symbolGraph !== false
        ? step('resolve symbols: calls, inherits, implements, overrides, references').resolveSymbols(ids)
        : null;
    symbolsRun?.catch(() => undefined);
    let resolved: Awaited<ReturnType<SyncActivities['resolveDependencies']>>;
    try {
      resolved = await step('resolve imports into depends_on edges').resolveDependencies(ids);
    } finally {
      // Never leave a step running behind a failure.
      if (symbolsRun) await symbolsRun.catch(() => undefined);
    }
    const symbols = symbolsRun ? await symbolsRun : null;
    durations.graphing = Date.now() - t;
    await releasing;

    // The precise tier (issue 29) runs beside the embedding steps, on the precise workers' queues; it never fails
    // the sync (its failures are sync issues), and the sync waits for it before finalizing.
    let preciseRun: ReturnType<typeof precise> | null = null;
    if (s.precise && symbols) {
      deprecatePatch(PRECISE_PATCH);
      preciseRun = precise(ids, commitSha ?? '', s);
    }
    preciseRun?.catch(() => undefined);
    const embed = { ...ids, embeddings: begin.embeddings };
    let files: EmbedResult;
    let chunks: EmbedResult;
    try {
      if (begin.embeddings && toEmbed.known && toEmbed.files === 0 && toEmbed.chunks === 0) {
        deprecatePatch(IDLE_EMBED_PATCH);
        // Every file and chunk of the sync already has its vector (a re-sync of unchanged files): the two embedding
        // steps would find nothing to do; what they would report is known (every chunk embedded, no file text sent).
        files = { embedded: 0, failed: 0, skipped: false };
        chunks = { embedded: totals.chunks, failed: 0, skipped: false };
        durations.embedding_summaries = 0;
        durations.embedding_chunks = 0;
      } else {
        t = Date.now();
        setPhase('embedding_summaries', 0, totals.files);
        files = await step(`embed ${count(totals.files)} files`).embedFiles(embed);
        if (!files.skipped) durations.embedding_summaries = Date.now() - t;
        t = Date.now();
        setPhase('embedding_chunks', 0, totals.chunks);
        chunks = await step(`embed ${count(totals.chunks)} chunks`).embedChunks(embed);
        if (!chunks.skipped) durations.embedding_chunks = Date.now() - t;
      }
    } finally {
      // Never leave a step running behind a failure.
      if (preciseRun) await preciseRun.catch(() => undefined);
    }
    const preciseOut = preciseRun ? await preciseRun : null;
    if (preciseOut) durations.precise = preciseOut.ms;

    return {
      commit_sha: commitSha ?? '',
      files: totals.files,
      binary_files: totals.binaryFiles,
      chunks: totals.chunks,
      symbols: totals.symbols,
      vertices: totals.fileVertices + totals.symbolVertices,
      edges: { depends_on: resolved.dependsOnEdges, defines: totals.definesEdges, ...(symbols?.edges ?? {}) },
      ...(symbols ? { symbol_uses: { unresolved: symbols.unresolved, external: symbols.external } } : {}),
      ...(preciseOut && Object.keys(preciseOut.languages).length > 0 ? { precise: preciseOut.languages } : {}),
      embeddings: {
        files_embedded: files.embedded,
        files_failed: files.failed,
        chunks_embedded: chunks.embedded,
        chunks_failed: chunks.failed,
        skipped: files.skipped,
      },
      durations_ms: durations,
    };
  }

  async function runOne(syncId: string): Promise<SyncRunOutcome> {
    const ids = { syncId, sourceId: input.sourceId };
    setPhase('starting', 0, 0);
    const begin = await control('begin: pending → running').beginSync(ids);
    if (!begin.proceed) {
      setPhase(begin.status, 0, 0);
      // The search attribute says what the database says (a Reset may reach a run that completed).
      markStatus(begin.runStatus ?? begin.status);
      return { syncId, status: begin.status, ...(begin.error ? { error: begin.error } : {}) };
    }
    const started = Date.now();
    markStatus('running');
    try {
      scope = new CancellationScope();
      const stats = await scope.run(async () => {
        if (cancelReason !== null) CancellationScope.current().cancel();
        return steps(ids, begin);
      });
      setPhase('finalizing', 0, 1);
      // The work is done: completing it is not interrupted by a late cancellation.
      const finalized = await CancellationScope.nonCancellable(() =>
        control('finalize: issue cap, stats, running → completed', begin.settings).finalizeSync({
          ...ids,
          stats,
          startedAtMs: started,
        }),
      );
      setPhase('completed', 1, 1);
      markStatus(finalized.status ?? 'completed');
      return { syncId, status: 'completed' };
    } catch (err) {
      if (isCancellation(err)) {
        const byTemporal = cancelReason === null;
        const reason = cancelReason ?? 'cancelled through Temporal';
        const ended = await CancellationScope.nonCancellable(() =>
          control('end: cancelled', begin.settings).endSync({ ...ids, status: 'cancelled', error: reason }),
        );
        setPhase('cancelled', 0, 0);
        markStatus(ended.status ?? 'cancelled');
        // Temporal's own cancellation ends the workflow as Canceled, so the UI shows what happened.
        if (byTemporal) throw err;
        return { syncId, status: 'cancelled', error: reason };
      }
      const error = failureMessage(err);
      const ended = await CancellationScope.nonCancellable(() =>
        control('end: failed', begin.settings).endSync({ ...ids, status: 'failed', error }),
      );
      setPhase('failed', 0, 0);
      markStatus(ended.status ?? 'failed');
      return { syncId, status: 'failed', error };
    } finally {
      scope = null;
    }
  }

  for (;;) {
    let next = queue.shift();
    if (next === undefined) {
      deprecatePatch(SIGNALS_PATCH);
      // A retry signal being checked (queueRetry) may still add a run.
      await condition(allHandlersFinished);
      next = queue.shift();
    }
    if (next === undefined) break;
    current = next;
    cancelReason = null;
    upsertSearchAttributes([
      { key: CKG_SYNC_ID, value: next },
      { key: CKG_SYNC_STATUS, value: 'pending' },
    ]);
    try {
      runs.push(await runOne(next));
    } catch (err) {
      // Temporal's cancellation can also land during beginSync; ending the run is idempotent.
      if (isCancellation(err)) {
        const ids = { syncId: next, sourceId: input.sourceId };
        const ended = await CancellationScope.nonCancellable(() =>
          control('end: cancelled').endSync({ ...ids, status: 'cancelled', error: 'cancelled through Temporal' }),
        );
        markStatus(ended.status ?? 'cancelled');
      }
      throw err;
    }
    current = null;
  }
  const last = runs[runs.length - 1] ?? { syncId: input.syncId, status: 'skipped' as const };
  if (last.status === 'failed') {
    deprecatePatch(SIGNALS_PATCH);
    // A failed sync is a failed workflow execution: Temporal's own status filter (Failed) finds it, with the
    // run's error as the failure message; the result rides along as the failure's details.
    throw ApplicationFailure.create({
      type: SYNC_FAILED,
      message: last.error ?? 'sync failed',
      nonRetryable: true,
      details: [{ ...last, runs }],
    });
  }
  return { ...last, runs };
}
